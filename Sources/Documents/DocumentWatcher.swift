// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import Glibc
    import SecureFiles
    import SystemPackage

    /// The one inotify instance and the one thread behind every
    /// ``DocumentController/observeExternalChanges(_:)`` of the process.
    ///
    /// Each observation used to make its own inotify instance and thread. inotify instances are
    /// limited per user (`fs.inotify.max_user_instances`, 128 by default, shared with every other
    /// program the user runs), so an app observing a few dozen documents could be refused with
    /// `EMFILE`, and each open document cost a thread that woke ten times a second. Now the
    /// instance, the thread and watches on a shared directory are shared; the thread wakes for an
    /// event, or once a second, and ends within a second of the last observation's cancel.
    ///
    /// Only the thread closes its instance: closing it from a cancelling thread while the watcher
    /// is between its `poll` and its `read` could hand the descriptor's number to another file
    /// before the `read`.
    final class DocumentWatcher: Sendable {
        /// What one observation needs: the watches it holds, and what to do when one fires.
        struct Entry {
            let observation: DocumentObservation
            var watches: [Int32]
            /// Looks again at the document; `nil` when the controller is gone. Returns what to report
            /// and where the document is now (to watch it there).
            let check: @Sendable () -> (change: ExternalChange?, url: URL)?
            let handler: @Sendable (ExternalChange) -> Void
            var lastReported: ExternalChange?
        }

        private struct State {
            var queue: ChangeQueue?
            var entries: [ObjectIdentifier: Entry] = [:]
            /// How many entries hold each watch (a folder with two open documents is watched once).
            var holders: [Int32: Int] = [:]
            var thread: Thread?
        }

        private let state = Locked(State())

        /// The process's watcher.
        static let shared = DocumentWatcher()

        /// The masks: a document's own events, and its folder's entries coming and going.
        static let documentMask = UInt32(
            IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MOVE_SELF
                | IN_DELETE_SELF)
        static let directoryMask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

        /// Starts watching `url` (and its folder) for `observation`. The watches are in place when
        /// this returns, so a change made right after is seen.
        func add(
            _ observation: DocumentObservation, url: URL, check: @escaping @Sendable () -> (change: ExternalChange?, url: URL)?,
            handler: @escaping @Sendable (ExternalChange) -> Void
        ) throws(FileSystemError) {
            try state.withLock { (state: inout State) throws(FileSystemError) -> Void in
                if state.queue == nil { state.queue = try ChangeQueue() }
                guard let queue = state.queue else { return }
                let watches = Self.watch(url, in: queue, holders: &state.holders)
                state.entries[ObjectIdentifier(observation)] = Entry(
                    observation: observation, watches: watches, check: check, handler: handler, lastReported: nil)
                if state.thread == nil {
                    let thread = Thread { [self] in run(queue) }
                    thread.name = Self.threadName
                    state.thread = thread
                    thread.start()
                }
            }
        }

        /// Stops watching for `observation`. After the last one the instance is retired: its thread
        /// closes it and ends, and a later observation starts a new instance and thread.
        func remove(_ observation: DocumentObservation) {
            state.withLock { state in
                guard let entry = state.entries.removeValue(forKey: ObjectIdentifier(observation)), let queue = state.queue else { return }
                Self.unwatch(entry.watches, in: queue, holders: &state.holders)
                if state.entries.isEmpty {
                    state.queue = nil
                    state.thread = nil
                    state.holders = [:]
                }
            }
        }

        /// The watcher thread's name, by which a handler that cancels its own observation is known.
        static let threadName = "swift-bookmarks.DocumentWatcher"

        /// Whether the calling thread is a watcher thread.
        static var isCurrentThread: Bool { Thread.current.name == threadName }

        private func run(_ queue: ChangeQueue) {
            defer { queue.close() }
            while true {
                if state.withLock({ $0.queue !== queue }) { return }
                guard let events = try? queue.events(waitingUpTo: 1_000) else { return }
                if events.isEmpty { continue }
                var fired = Set(events.map(\.watch))
                // Let a burst of events (a save is many) settle before looking.
                while let more = try? queue.events(waitingUpTo: 20), !more.isEmpty { fired.formUnion(more.map(\.watch)) }
                let woken = state.withLock { state in
                    state.queue === queue ? state.entries.values.filter { !fired.isDisjoint(with: $0.watches) } : []
                }
                for entry in woken { look(entry, queue: queue) }
            }
        }

        /// Looks at one woken document: reports a new change, and moves its watches where it is now.
        private func look(_ entry: Entry, queue: ChangeQueue) {
            let observation = entry.observation
            guard observation.beginRun() else { return }
            defer { observation.endRun() }
            guard let (change, url) = entry.check() else {
                // The controller is gone: nothing is left to observe.
                remove(observation)
                return
            }
            let report = state.withLock { state -> Bool in
                let key = ObjectIdentifier(observation)
                guard var current = state.entries[key], state.queue === queue else { return false }
                // Watch the new place before telling: the handler may act on it at once.
                Self.unwatch(current.watches, in: queue, holders: &state.holders)
                current.watches = Self.watch(url, in: queue, holders: &state.holders)
                let isNew = change != nil && change != current.lastReported
                current.lastReported = change
                state.entries[key] = current
                return isNew
            }
            if report, let change { entry.handler(change) }
        }

        /// Watches `url` and its folder; each watch counted once more in `holders`. Masks are added
        /// to a watch another document holds (`IN_MASK_ADD`), never taken from it.
        private static func watch(_ url: URL, in queue: ChangeQueue, holders: inout [Int32: Int]) -> [Int32] {
            guard let path = FileURLPaths.bytes(of: url).map(PathBytes.init) else { return [] }
            var watches: [Int32] = []
            for (index, watched) in [path, path.parent].enumerated() {
                let mask = (index == 0 ? documentMask : directoryMask) | UInt32(IN_MASK_ADD)
                guard let watch = try? queue.watch(watched.filePath, mask: mask), !watches.contains(watch) else { continue }
                watches.append(watch)
                holders[watch, default: 0] += 1
            }
            return watches
        }

        /// Lets go of `watches`; a watch no entry holds any more is removed.
        private static func unwatch(_ watches: [Int32], in queue: ChangeQueue, holders: inout [Int32: Int]) {
            for watch in watches {
                let left = (holders[watch] ?? 1) - 1
                if left > 0 {
                    holders[watch] = left
                } else {
                    holders[watch] = nil
                    queue.unwatch(watch)
                }
            }
        }

        /// The number of inotify instances and watches in use, for tests.
        var usage: (instances: Int, watches: Int, observations: Int) {
            state.withLock { ($0.queue == nil ? 0 : 1, $0.holders.count, $0.entries.count) }
        }
    }
#endif
