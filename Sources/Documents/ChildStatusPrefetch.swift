// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles
    import Synchronization
    import SystemPackage

    /// The statuses of a large directory's children in the original package, read ahead on a
    /// thread of their own while the save links them into the new tree.
    ///
    /// Why: saving a package with thousands of unchanged children costs one `statx` (is it still
    /// the file that was read?) and one `linkat` per child, one after the other. The `statx` calls
    /// only look names up (no lock the `linkat` calls take), so on a second core they run
    /// alongside: a 10,000-child save lost about a tenth of its time (Docs/PERFORMANCE.md,
    /// "Saving a document package").
    ///
    /// The reading thread touches only the names and the directory's descriptor, never a
    /// `FileWrapper`. A status is read at most a few hundred children before the save uses it; the
    /// decision it supports (link the object or refuse the save) was already made on a status read
    /// before the `linkat`, so the window in which another process can swap a file is longer but of
    /// the same kind (Docs/DOCUMENTS.md, "The save algorithm"). The caller's syscall observer (an
    /// audit log, an injected fault) is bound on the reading thread too.
    final class ChildStatusPrefetch: @unchecked Sendable {
        /// Children below this many are read in line: a thread costs more than it saves.
        static let threshold = 512

        /// How far the reader may run ahead, in children.
        private static let lead = 1024
        /// Children read between two publications of `ready`.
        private static let step = 32
        /// How often the caller tells the reader where it is: a reader held back by `lead` then
        /// wakes for this many children at a time, not for every `step`.
        private static let report = 256

        private let names: [[UInt8]?]
        private let directory: OwnedDescriptor
        /// Slot `i` is written by the reader before it stores a `ready` above `i` (releasing), and
        /// read by the caller only after it loaded such a `ready` (acquiring). A status, or `nil`
        /// when the read failed: the caller then reads it again itself and meets the error there.
        /// (A plain value: a `Result` carrying the error cost a generic copy and destroy per child.)
        private let slots: UnsafeMutablePointer<FileStatus?>
        /// How many slots the reader has filled.
        private let ready = Atomic<Int>(0)
        /// The child the caller is at (it has used every slot below it).
        private let wanted = Atomic<Int>(0)
        private let stopped = Atomic<Bool>(false)
        /// Set by a side that is about to sleep; the other side wakes it (`sleep`) only then.
        /// Each side stores its progress, then loads the other's flag; each sleeper stores its
        /// flag, then loads the progress under `sleep`'s lock: with sequentially consistent
        /// atomics one of the two sees the other, so no wake-up is lost, and in the usual case
        /// (the reader ahead, neither waiting) the hand-off takes no lock and no system call.
        /// (Before: one lock for both sides every 32 children, contended; 1,165 `futex` calls per
        /// 10,000-child save.)
        private let readerSleeps = Atomic<Bool>(false)
        private let callerSleeps = Atomic<Bool>(false)
        private let sleep = Condition(())
        /// Whether the reader has returned. A pthread condition, not a `DispatchSemaphore`:
        /// ThreadSanitizer does not see libdispatch's hand-over on Linux, so after `finish` it took
        /// the next read-ahead's `Condition`, allocated where this one's had been, for memory the
        /// gone reader still touched (a CI run reported that false race).
        private let exited = Condition(false)
        /// The caller's view of `ready`, refreshed only when it runs out.
        private var seen = 0

        /// Starts reading `names` (`nil`: nothing to read for that child) in `directory`.
        init(names: [[UInt8]?], in directory: OwnedDescriptor) {
            self.names = names
            self.directory = directory
            slots = .allocate(capacity: max(names.count, 1))
            slots.initialize(repeating: nil, count: max(names.count, 1))
            let observer = SyscallSeam.observer
            let thread = Thread { [self] in
                SyscallSeam.$observer.withValue(observer) { read() }
                exited.update { $0 = true }
            }
            thread.stackSize = 1 << 18
            thread.start()
        }

        deinit {
            slots.deinitialize(count: max(names.count, 1))
            slots.deallocate()
        }

        private func read() {
            var index = 0
            while index < names.count, !stopped.load(ordering: .sequentiallyConsistent) {
                // Not too far ahead of the caller.
                if index >= wanted.load(ordering: .sequentiallyConsistent) + Self.lead {
                    readerSleeps.store(true, ordering: .sequentiallyConsistent)
                    sleep.wait(atMost: .seconds(3600), until: { _ in
                        stopped.load(ordering: .sequentiallyConsistent)
                            || index < wanted.load(ordering: .sequentiallyConsistent) + Self.lead
                    }) { _, _ in }
                    readerSleeps.store(false, ordering: .sequentiallyConsistent)
                    continue
                }
                let end = min(index + Self.step, names.count)
                for position in index..<end {
                    if let name = names[position] { slots[position] = try? directory.statusOfChild(name) }
                }
                index = end
                ready.store(end, ordering: .sequentiallyConsistent)
                if callerSleeps.load(ordering: .sequentiallyConsistent) { sleep.update { _ in } }
            }
        }

        /// The status of child `index` (`nil` when it had no name to read or the read failed: the
        /// caller reads it itself), waiting for the reader if it has not got there yet. Called in
        /// order of `index`, from one thread.
        func status(at index: Int) -> FileStatus? {
            guard index >= 0, index < names.count else { return nil }
            if index % Self.report == 0 {
                wanted.store(index, ordering: .sequentiallyConsistent)
                if readerSleeps.load(ordering: .sequentiallyConsistent) { sleep.update { _ in } }
            }
            if index >= seen {
                seen = ready.load(ordering: .sequentiallyConsistent)
                if index >= seen {
                    // Say where the caller is first: the reader may be held back by `lead`.
                    wanted.store(index, ordering: .sequentiallyConsistent)
                    if readerSleeps.load(ordering: .sequentiallyConsistent) { sleep.update { _ in } }
                    callerSleeps.store(true, ordering: .sequentiallyConsistent)
                    sleep.wait(atMost: .seconds(3600), until: { _ in ready.load(ordering: .sequentiallyConsistent) > index }) { _, _ in }
                    callerSleeps.store(false, ordering: .sequentiallyConsistent)
                    seen = ready.load(ordering: .sequentiallyConsistent)
                    if index >= seen { return nil }
                }
            }
            return slots[index]
        }

        /// Stops the reader and waits for it: after this the directory may be closed.
        func finish() {
            stopped.store(true, ordering: .sequentiallyConsistent)
            sleep.update { _ in }
            exited.wait(atMost: .seconds(86_400 * 365), until: { $0 }) { _, _ in }
        }
    }
#endif
