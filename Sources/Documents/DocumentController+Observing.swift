// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    /// A running observation of an open document (``DocumentController/observeExternalChanges(_:)``).
    public final class DocumentObservation: @unchecked Sendable {
        // State under `condition`: cancelled once, and whether a look (a check and maybe the
        // handler) is running for it on the watcher thread.
        private let condition = NSCondition()
        private var cancelled = false
        private var running = false

        init() {}

        /// Stops observing. When it returns, the handler is not running for this observation and
        /// will not be called again (called from the handler itself, it does not wait for itself).
        public func cancel() {
            condition.lock()
            let first = !cancelled
            cancelled = true
            condition.unlock()
            guard first else { return }
            DocumentWatcher.shared.remove(self)
            guard !DocumentWatcher.isCurrentThread else { return }
            condition.lock()
            while running { condition.wait() }
            condition.unlock()
        }

        /// The watcher starts a look; `false` once cancelled.
        func beginRun() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard !cancelled else { return false }
            running = true
            return true
        }

        /// The watcher's look is over.
        func endRun() {
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
    }

    extension DocumentController {
        /// Tells `handler` when another process moves, renames, edits, replaces or deletes the
        /// document, without being asked: an inotify watch on the document and on its directory
        /// wakes a ``checkForExternalChange()`` (so a move is also followed by ``fileURL``). Our own
        /// saves are not reported. Each different change is reported once.
        ///
        /// Every observation of the process shares one inotify instance and one thread (inotify
        /// instances are limited per user, 128 by default), and documents in one folder share its
        /// watch. The handler is called on that thread, one call at a time: a slow handler delays
        /// the reports of other documents.
        ///
        /// inotify sees changes made through this kernel only: on NFS or a FUSE file system, edits
        /// by other machines are found at the next ``checkForExternalChange()`` or ``save()``.
        ///
        /// - Returns: The observation; ``DocumentObservation/cancel()`` stops it.
        /// - Throws: `FileSystemError` when no inotify instance can be made.
        public func observeExternalChanges(_ handler: @escaping @Sendable (ExternalChange) -> Void) throws -> DocumentObservation {
            let observation = DocumentObservation()
            try DocumentWatcher.shared.add(
                observation, url: fileURL,
                check: { [weak self] in
                    guard let controller = self else { return nil }
                    let change = controller.checkForExternalChange()
                    return (change, controller.fileURL)
                },
                handler: handler)
            return observation
        }
    }
#endif
