// SPDX-License-Identifier: Apache-2.0
// BookmarkKit: what a bookmark's resolution derives from its record, kept per bookmark.
import BookmarkFormat
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The ``Recorded`` form of one record, computed on first use (see ``Bookmark/recordedCache``),
/// and the memo of its last unmoved resolution: a reference to one ``RecordedCacheBuffer``,
/// shared by copies of the bookmark.
///
/// A struct around the buffer because `ManagedBuffer` is not `Sendable` and neither can a
/// subclass be; the buffer's state is only ever touched under its mutex.
struct RecordedCache: @unchecked Sendable {
    private(set) var buffer: RecordedCacheBuffer

    /// An empty cache.
    static func make() -> RecordedCache { RecordedCache(buffer: RecordedCacheBuffer.make()) }

    /// Whether no copy of the bookmark shares this cache.
    mutating func isUnshared() -> Bool { isKnownUniquelyReferenced(&buffer) }

    /// Forgets the derived facts (the record changed).
    func forget() { buffer.forget() }

    /// The recorded facts of `record`, which must be the record this cache belongs to. The
    /// record is read only when they are not known yet: a new bookmark's record is filled then,
    /// and a known one is not copied out of its bookmark on every resolution.
    func recorded(for record: @autoclosure () -> BookmarkRecord) throws(BookmarkError) -> Recorded {
        try buffer.recordedAndMemo(for: record()).recorded
    }

    /// ``recorded(for:)`` and the memo of its last unmoved resolution, if any, under one lock.
    func recordedAndMemo(for record: @autoclosure () -> BookmarkRecord) throws(BookmarkError)
        -> (recorded: Recorded, unmoved: UnmovedMemo?)
    {
        try buffer.recordedAndMemo(for: record())
    }

    /// Keeps `memo`, made from a resolution of `recorded`, unless the record changed since.
    func remember(_ memo: UnmovedMemo, for recorded: Recorded) { buffer.remember(memo, for: recorded) }
}

/// The storage of a ``RecordedCache``, in one allocation: the facts are the buffer's header and
/// the `pthread_mutex_t` that guards them its one tail element (a `ManagedBuffer` never moves, as
/// POSIX requires of a mutex). Every decoded or created bookmark makes one, and as an object
/// holding a `Locked` it took three allocations (the object, the lock, its mutex): about a tenth
/// of decoding and re-encoding a bookmark. A pthread mutex rather than `Synchronization.Mutex`
/// for the reason `Locked` gives (ThreadSanitizer sees it).
final class RecordedCacheBuffer: ManagedBuffer<RecordedCacheBuffer.Known, pthread_mutex_t> {
    struct Known {
        var recorded: Recorded?
        /// The last unmoved resolution's memo (``UnmovedMemo``), for ``recorded``.
        var unmoved: UnmovedMemo?
    }

    /// An empty buffer, its mutex initialised.
    static func make() -> RecordedCacheBuffer {
        let buffer = RecordedCacheBuffer.create(minimumCapacity: 1) { _ in Known() }
        let cache = unsafeDowncast(buffer, to: RecordedCacheBuffer.self)
        cache.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        return cache
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    /// Runs `body` with the facts, holding the lock.
    private func withLock<R>(_ body: (inout Known) -> R) -> R {
        withUnsafeMutablePointers { known, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body(&known.pointee)
        }
    }

    /// Forgets the derived facts (``RecordedCache/forget()``).
    func forget() { withLock { $0 = Known() } }

    /// The recorded facts and the memo (``RecordedCache/recordedAndMemo(for:)``).
    func recordedAndMemo(for record: @autoclosure () -> BookmarkRecord) throws(BookmarkError)
        -> (recorded: Recorded, unmoved: UnmovedMemo?)
    {
        let known = withLock { $0 }
        if let recorded = known.recorded { return (recorded, known.unmoved) }
        let fresh = try Recorded(record())
        withLock { $0 = Known(recorded: fresh) }
        return (fresh, nil)
    }

    /// Keeps `memo` (``RecordedCache/remember(_:for:)``).
    func remember(_ memo: UnmovedMemo, for recorded: Recorded) {
        withLock { known in
            if known.recorded === recorded { known.unmoved = memo }
        }
    }
}
