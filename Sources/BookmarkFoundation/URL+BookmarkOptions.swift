// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    extension URL {
        /// Options for creating bookmark data, with Apple's names and bit values
        /// (`NSURL.BookmarkCreationOptions`, `CFURLBookmarkCreationOptions`).
        ///
        /// The raw value is stored in the bookmark (key `0xD010`, `creationOptions`), exactly as Apple
        /// stores it. What each option does on Linux:
        ///
        /// | option | bit | on Linux |
        /// |---|---|---|
        /// | ``minimalBookmark`` | `1 << 9` | leaves out the per-component file IDs, resource values, user and capacity |
        /// | ``suitableForBookmarkFile`` | `1 << 10` | recorded; the data already holds what an alias file needs |
        /// | ``withSecurityScope`` | `1 << 11` | signs the data with this application's key (`SecurityScope`) |
        /// | ``securityScopeAllowOnlyReadAccess`` | `1 << 12` | recorded in the signed data; `SecurityScope.open(_:for:)` then refuses writing |
        /// | ``withoutImplicitSecurityScope`` | `1 << 29` | recorded only (there is no implicit scope to leave out) |
        /// | ``preferFileIDResolution`` | `1 << 8` | deprecated by Apple in macOS 10.9; recorded, no effect |
        public struct BookmarkCreationOptions: OptionSet, Sendable, Hashable {
            /// The bits, as Apple defines them.
            public let rawValue: UInt

            /// Creates options from Apple's bit values.
            public init(rawValue: UInt) { self.rawValue = rawValue }

            /// Deprecated by Apple (macOS 10.9): "does nothing and has no effect on bookmark resolution".
            /// Kept so that old code compiles; recorded in the data, no effect.
            @available(*, deprecated, message: "Apple: does nothing and has no effect on bookmark resolution")
            public static let preferFileIDResolution = BookmarkCreationOptions(rawValue: 1 << 8)

            /// Less information: smaller data that still resolves by path and volume. Leaves out the
            /// per-component file IDs (no re-anchoring by the parent), the stored resource values, the
            /// user and the volume capacity; the cross-volume heuristic cannot use it.
            public static let minimalBookmark = BookmarkCreationOptions(rawValue: 1 << 9)

            /// Includes what an alias file needs. Our bookmarks always include it, so on Linux this only
            /// sets the bit in the stored creation options (as Finder's aliases have it).
            public static let suitableForBookmarkFile = BookmarkCreationOptions(rawValue: 1 << 10)

            /// A security-scoped bookmark. As on macOS, the data carries a signature made with a key of
            /// the creating application (HMAC-SHA256, `SecurityScope.applicationIdentifier`'s key):
            /// only this application can resolve it with
            /// `URL.BookmarkResolutionOptions.withSecurityScope`, and any change to the data is
            /// detected. Resolving without that option works in any process, unscoped. See
            /// `SecurityScope` for the key's location and what it protects against.
            public static let withSecurityScope = BookmarkCreationOptions(rawValue: 1 << 11)

            /// With ``withSecurityScope``: a read-only scope. Recorded in the signed data; opening the
            /// resolved URL through `SecurityScope.open(_:for:)` (or
            /// `FileHandle(forSecurityScopedURL:access:)`) for writing fails with
            /// `CocoaError.fileWriteNoPermission`.
            public static let securityScopeAllowOnlyReadAccess = BookmarkCreationOptions(rawValue: 1 << 12)

            /// Leaves out the implicit, ephemeral security scope that a resolving process would get.
            /// There is no such scope on Linux: recorded only.
            public static let withoutImplicitSecurityScope = BookmarkCreationOptions(rawValue: 1 << 29)
        }

        /// Apple's `URL.BookmarkFileCreationOptions` (`NSUInteger`, imported as `Int`): options for
        /// writing an alias file, which Apple defines none of and ignores.
        public typealias BookmarkFileCreationOptions = Int

        /// Options for resolving bookmark data, with Apple's names and bit values
        /// (`NSURL.BookmarkResolutionOptions`, `CFURLBookmarkResolutionOptions`).
        ///
        /// What each option does on Linux (only ``withSecurityScope`` changes anything):
        ///
        /// | option | bit | on Linux |
        /// |---|---|---|
        /// | ``withoutUI`` | `1 << 8` | no effect: resolution never shows UI |
        /// | ``withoutMounting`` | `1 << 9` | no effect: this API never mounts (it is always "without mounting") |
        /// | ``withSecurityScope`` | `1 << 10` | checks the data's signature with this application's key; the URL can then be started |
        /// | ``withoutImplicitStartAccessing`` | `1 << 15` | no effect: there is no implicit scope |
        /// | ``volumeResponseTimeout(seconds:)`` | bits 40–55 | Linux only: how long a FUSE or network volume may take to answer |
        ///
        /// With or without ``withoutMounting``, a bookmark whose volume is not mounted fails at once
        /// with `CocoaError.fileNoSuchFile` (underlying `BookmarkError` code `volumeNotMounted`). Code that
        /// wants the volume mounted uses `BookmarkKit`'s `ResolutionOptions(allowMounting: true)`,
        /// which mounts an attached device through UDisks2.
        public struct BookmarkResolutionOptions: OptionSet, Sendable, Hashable {
            /// The bits, as Apple defines them.
            public let rawValue: UInt

            /// Creates options from Apple's bit values.
            public init(rawValue: UInt) { self.rawValue = rawValue }

            /// No user interaction while resolving. Resolution on Linux never interacts: no effect.
            public static let withoutUI = BookmarkResolutionOptions(rawValue: 1 << 8)

            /// Do not mount the bookmark's volume. This API never mounts, so this is the behaviour with
            /// or without the option: an unmounted volume fails fast.
            public static let withoutMounting = BookmarkResolutionOptions(rawValue: 1 << 9)

            /// Use the security scope stored at creation: the data's signature is checked with this
            /// application's key first (data that is unsigned, changed, or of another application fails
            /// with `CocoaError.fileReadCorruptFile`), and
            /// `URL.startAccessingSecurityScopedResource()` on the returned URL then returns `true`.
            public static let withSecurityScope = BookmarkResolutionOptions(rawValue: 1 << 10)

            /// Do not start the implicit security scope (macOS 11.2+). No such scope on Linux: no effect.
            public static let withoutImplicitStartAccessing = BookmarkResolutionOptions(rawValue: 1 << 15)

            /// The bits that carry ``volumeResponseTimeout(seconds:)``: 40 to 55, which Apple does not use.
            static let timeoutShift: UInt = 40
            static let timeoutMask: UInt = 0xFFFF << timeoutShift

            /// Linux only: how long a FUSE or network volume (sshfs, NFS, SMB, …) may take to answer
            /// before resolution fails with `CocoaError.fileReadUnknown` whose underlying
            /// `BookmarkError` has code `volumeNotResponding` (default, when no timeout is given: 2 s).
            ///
            /// Apple's resolution can hang for a minute on an unreachable server; here it never
            /// waits longer than this (plus the search budget when a search runs on such a volume).
            /// Combine it with Apple's options: `[.withoutUI, .volumeResponseTimeout(seconds: 0.5)]`.
            /// Stored in bits 40 to 55 in tenths of a second (0.1 to 6553.5 s); give one timeout only.
            ///
            /// - Parameter seconds: The timeout, rounded up to a tenth of a second and clamped to
            ///   0.1...6553.5.
            public static func volumeResponseTimeout(seconds: Double) -> BookmarkResolutionOptions {
                let tenths = seconds.isNaN ? 20 : UInt(min(max((seconds * 10).rounded(.up), 1), 65_535))
                return BookmarkResolutionOptions(rawValue: tenths << timeoutShift)
            }

            /// The timeout set with ``volumeResponseTimeout(seconds:)``, or `nil` for the default.
            public var volumeResponseTimeout: Duration? {
                let tenths = (rawValue & Self.timeoutMask) >> Self.timeoutShift
                return tenths == 0 ? nil : .milliseconds(Int64(tenths) * 100)
            }
        }
    }
#endif
