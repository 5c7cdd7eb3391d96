// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// Options for creating bookmark data, with Apple's bit values (`NSURL.BookmarkCreationOptions`).
public struct BookmarkCreationOptions: OptionSet, Sendable, Hashable {
    /// The raw value, stored in the bookmark as `creationOptions` (`0xD010`).
    public let rawValue: UInt32
    /// Creates options from a raw value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Less information: no per-component file IDs, no resource values, no user, no capacity.
    public static let minimalBookmark = BookmarkCreationOptions(rawValue: 1 << 9)
    /// What an alias file needs (Finder's aliases all have this).
    public static let suitableForBookmarkFile = BookmarkCreationOptions(rawValue: 1 << 10)
    /// A signed bookmark (security scope on Linux; see the signed-bookmark docs).
    public static let withSecurityScope = BookmarkCreationOptions(rawValue: 1 << 11)
    /// With ``withSecurityScope``: the scope grants read access only.
    public static let securityScopeAllowOnlyReadAccess = BookmarkCreationOptions(rawValue: 1 << 12)
    /// Apple's `withoutImplicitSecurityScope` (recorded only).
    public static let withoutImplicitSecurityScope = BookmarkCreationOptions(rawValue: 1 << 29)
}

/// How far a search may go before giving up.
public struct SearchBudget: Sendable, Hashable {
    /// The longest a search may run.
    public var time: Duration
    /// The most directory entries a search may read.
    public var entries: Int

    /// Creates a budget.
    public init(time: Duration = .seconds(2), entries: Int = 2_000_000) {
        self.time = time
        self.entries = entries
    }

    /// 2 s and 2,000,000 entries.
    public static let `default` = SearchBudget()
    /// No limit (a whole-volume search).
    public static let unlimited = SearchBudget(time: .seconds(Int64.max / 2), entries: .max)
}

/// A flag another task can set to stop a resolution (also honoured: `Task.isCancelled`).
public final class CancellationFlag: Sendable {
    private let state = AtomicFlag()
    /// Creates an unset flag.
    public init() {}
    /// Asks every resolution that watches this flag to stop.
    public func cancel() { state.set() }
    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.value }
}

/// How to resolve bookmark data.
public struct ResolutionOptions: Sendable {
    /// Whether to search the volume when the path and handle do not find the object (default on).
    public var search: Bool
    /// The search budget.
    public var budget: SearchBudget
    /// Whether to use file handles when the process may open them (default on).
    public var useHandles: Bool
    /// Whether an attached but unmounted volume may be mounted through UDisks2 (default off).
    public var allowMounting: Bool
    /// Whether to look for the object on other volumes by name, size and birth time (default off).
    public var crossVolumeHeuristic: Bool
    /// The directory a relative bookmark is resolved against now.
    public var relativeTo: FilePath?
    /// A flag to cancel the resolution from elsewhere.
    public var cancellation: CancellationFlag?
    /// How long a volume that may block (FUSE, network: `MountEntry.mayBlock`) may take to answer
    /// before the resolution gives up with ``BookmarkError/Code/volumeNotResponding`` (default
    /// 2 s). A search on such a volume gets its budget's time on top. Volumes that cannot block
    /// are not timed.
    public var volumeResponseTimeout: Duration
    /// Where the object was seen since the bookmark was made (a volume catalog): tried before the
    /// search, and named in a `volumeNotMounted` error (``LocationHintProvider``). Default none.
    public var locationHints: (any LocationHintProvider)?
    /// How many threads a batch may use for the steps each bookmark takes alone: for stored data
    /// (``Bookmark/resolveAll(storedIn:options:volumes:progress:)``, ``Bookmark/resolveAll(data:options:volumes:progress:)``)
    /// reading its quick view and the one `statx` that checks an unmoved bookmark, for decoded
    /// bookmarks (``Bookmark/resolveAll(_:options:volumes:progress:)``) the steps before the search.
    /// `0` (the default): the active processors, for stored records taken 256 or more at a time
    /// and for decoded batches of 4,096 or more; `1`: the calling thread only. Results do not
    /// depend on it.
    public var batchThreads: Int
    /// Whether a bookmark found unmoved before, against the same mount table, may be confirmed
    /// with one `statx` of the path it was found at (its memo; Docs/RESOLUTION.md, "Path first")
    /// instead of taking every step again. The answer is the same either way; only the work
    /// differs. Default on. Off: every step runs and no memo is kept, for measuring the steps or
    /// auditing their system calls.
    public var useMemo: Bool

    /// Creates options; the defaults are the safe, non-blocking ones.
    public init(
        search: Bool = true, budget: SearchBudget = .default, useHandles: Bool = true, allowMounting: Bool = false,
        crossVolumeHeuristic: Bool = false, relativeTo: FilePath? = nil, cancellation: CancellationFlag? = nil,
        volumeResponseTimeout: Duration = .seconds(2), locationHints: (any LocationHintProvider)? = nil,
        batchThreads: Int = 0, useMemo: Bool = true
    ) {
        self.useMemo = useMemo
        self.batchThreads = batchThreads
        self.locationHints = locationHints
        self.volumeResponseTimeout = volumeResponseTimeout
        self.search = search
        self.budget = budget
        self.useHandles = useHandles
        self.allowMounting = allowMounting
        self.crossVolumeHeuristic = crossVolumeHeuristic
        self.relativeTo = relativeTo
        self.cancellation = cancellation
    }
}

extension ResolutionOptions {
    /// Whether the caller cancelled: the flag set, or the current task cancelled.
    var isCancelled: Bool { BatchResolution.isCancelled(cancellation) }
}
