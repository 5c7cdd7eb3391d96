// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles
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
        /// Children read between two publications.
        private static let step = 32

        private let names: [[UInt8]?]
        private let directory: OwnedDescriptor
        /// Slot `i` is written by the reader before `ready` passes `i`, and read by the caller only
        /// after it saw that, under the condition's lock.
        private let slots: UnsafeMutablePointer<Result<FileStatus, FileSystemError>?>
        private let progress = Condition((ready: 0, wanted: 0, stop: false))
        private let exited = DispatchSemaphore(value: 0)
        /// The caller's view of `ready`, refreshed only when it must wait.
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
                exited.signal()
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
            while index < names.count {
                // Not too far ahead of the caller, and not past a stop.
                let go = progress.wait(atMost: .seconds(3600), until: { $0.stop || index < $0.wanted + Self.lead }) { state, _ in
                    !state.stop
                }
                guard go else { return }
                let end = min(index + Self.step, names.count)
                for position in index..<end {
                    if let name = names[position] {
                        slots[position] = Result { () throws(FileSystemError) in try directory.statusOfChild(name) }
                    }
                }
                index = end
                progress.update { $0.ready = end }
            }
        }

        /// The status of child `index` (`nil` when it had no name to read), waiting for the reader
        /// if it has not got there yet. Called in order of `index`, from one thread.
        func status(at index: Int) -> Result<FileStatus, FileSystemError>? {
            guard index >= 0, index < names.count else { return nil }
            if index >= seen {
                // Say where the caller is first: the reader may be waiting to be let further ahead.
                progress.update { $0.wanted = index }
                seen = progress.wait(atMost: .seconds(3600), until: { $0.ready > index }) { state, _ in state.ready }
                if index >= seen { return nil }
            } else if index % Self.step == 0 {
                progress.update { $0.wanted = index }
            }
            return slots[index]
        }

        /// Stops the reader and waits for it: after this the directory may be closed.
        func finish() {
            progress.update { $0.stop = true }
            exited.wait()
        }
    }
#endif
