// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import Glibc
    import SecureFiles
    import SystemPackage

    /// A running observation of an open document (``DocumentController/observeExternalChanges(_:)``).
    public final class DocumentObservation: @unchecked Sendable {
        private let stopped = Locked(false)
        private let done = DispatchSemaphore(value: 0)

        init() {}

        /// Stops observing; returns when the watcher thread has ended.
        public func cancel() {
            let first = stopped.withLock { stopped -> Bool in
                defer { stopped = true }
                return !stopped
            }
            if first { done.wait() }
        }

        var isCancelled: Bool { stopped.withLock { $0 } }

        func finished() { done.signal() }
    }

    extension DocumentController {
        /// Tells `handler` when another process moves, renames, edits, replaces or deletes the
        /// document, without being asked: an inotify watch on the document and on its directory,
        /// on a thread of its own, wakes a ``checkForExternalChange()`` (so a move is also followed
        /// by ``fileURL``). Our own saves are not reported. Each different change is reported once.
        ///
        /// inotify sees changes made through this kernel only: on NFS or a FUSE file system, edits
        /// by other machines are found at the next ``checkForExternalChange()`` or ``save()``.
        ///
        /// - Returns: The observation; ``DocumentObservation/cancel()`` stops it.
        /// - Throws: `FileSystemError` when no inotify instance can be made.
        public func observeExternalChanges(_ handler: @escaping @Sendable (ExternalChange) -> Void) throws -> DocumentObservation {
            let queue = try ChangeQueue()
            let observation = DocumentObservation()
            let documentMask = UInt32(
                IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF
                    | IN_DELETE_SELF)
            let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
            let watches: @Sendable (URL) -> [Int32] = { url in
                guard let path = FileURLPaths.bytes(of: url).map(PathBytes.init) else { return [] }
                return [path, path.parent].enumerated().compactMap { index, path in
                    try? queue.watch(path.filePath, mask: index == 0 ? documentMask : directoryMask)
                }
            }
            // The watches are in place before this returns: a change made right after the call is
            // seen (installing them on the thread lost a rename made before it ran).
            let initial = watches(fileURL)
            let thread = Thread { [weak self] in
                defer {
                    queue.close()
                    observation.finished()
                }
                var current = initial
                var lastReported: ExternalChange?
                func rewatch(_ url: URL) {
                    for watch in current { queue.unwatch(watch) }
                    current = watches(url)
                }
                while !observation.isCancelled {
                    guard let events = try? queue.events(waitingUpTo: 100) else { return }
                    guard !events.isEmpty, let controller = self else { continue }
                    // Let a burst of events (a save is many) settle before looking.
                    while let more = try? queue.events(waitingUpTo: 20), !more.isEmpty {}
                    let change = controller.checkForExternalChange()
                    // Watch the new place before telling: the handler may act on it at once.
                    rewatch(controller.fileURL)
                    if let change, change != lastReported { handler(change) }
                    lastReported = change
                }
            }
            thread.start()
            return observation
        }
    }
#endif
