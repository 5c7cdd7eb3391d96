// SPDX-License-Identifier: Apache-2.0
// BookmarkKit: what a bookmark's resolution derives from its record, kept per bookmark.
import BookmarkFormat
import SecureFiles

/// The ``Recorded`` form of one record, computed on first use (see ``Bookmark/recordedCache``),
/// and the memo of its last unmoved resolution; shared by copies of the bookmark.
///
/// Kept in an `InlineLocked` (one allocation; every decoded or created bookmark makes one, and
/// with a `Locked` held by a class it took three: about a tenth of decoding and re-encoding a
/// bookmark). A struct around it because `ManagedBuffer` cannot be `Sendable`; the state is only
/// ever touched under the lock.
struct RecordedCache: @unchecked Sendable {
    private struct Known {
        var recorded: Recorded?
        /// The last unmoved resolution's memo (``UnmovedMemo``), for ``recorded``.
        var unmoved: UnmovedMemo?
    }

    private var known: InlineLocked<Known>

    /// An empty cache.
    static func make() -> RecordedCache { RecordedCache(known: InlineLocked.make(Known())) }

    /// Whether no copy of the bookmark shares this cache.
    mutating func isUnshared() -> Bool { isKnownUniquelyReferenced(&known) }

    /// Forgets the derived facts (the record changed).
    func forget() { known.withLock { $0 = Known() } }

    /// The recorded facts of `record`, which must be the record this cache belongs to. The
    /// record is read only when they are not known yet: a new bookmark's record is filled then,
    /// and a known one is not copied out of its bookmark on every resolution.
    func recorded(for record: @autoclosure () -> BookmarkRecord) throws(BookmarkError) -> Recorded {
        try recordedAndMemo(for: record()).recorded
    }

    /// ``recorded(for:)`` and the memo of its last unmoved resolution, if any, under one lock.
    func recordedAndMemo(for record: @autoclosure () -> BookmarkRecord) throws(BookmarkError)
        -> (recorded: Recorded, unmoved: UnmovedMemo?)
    {
        let now = known.withLock { $0 }
        if let recorded = now.recorded { return (recorded, now.unmoved) }
        let fresh = try Recorded(record())
        known.withLock { $0 = Known(recorded: fresh) }
        return (fresh, nil)
    }

    /// Keeps `memo`, made from a resolution of `recorded`, unless the record changed since.
    func remember(_ memo: UnmovedMemo, for recorded: Recorded) {
        known.withLock { known in
            if known.recorded === recorded { known.unmoved = memo }
        }
    }
}
