// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles
    import SystemPackage

    /// The old package trees that atomic saves with
    /// ``FileWrapper/WritingOptions/removingOldTreeInBackground`` left to remove, and the identities
    /// to record once each is gone.
    ///
    /// Why it exists: in an incremental save of a big package most of the time after the swap goes
    /// to removing the old tree (one `unlinkat` per file) and then reading each linked child's
    /// identity again (its change time moves with every link and unlink). Neither is needed for the
    /// new package to be in place and durable, so this work runs on one serial background queue
    /// (Docs/PERFORMANCE.md, "Saving a document package").
    ///
    /// Consistency: the jobs touch no ``FileWrapper``; they work through descriptors and hand back
    /// what they found. Every ``FileWrapper`` call takes `FileWrapper.lock` and first settles:
    /// waits for the queue to drain and applies what the jobs found. So no call ever sees a linked
    /// child's identity from before the removal, and a save never compares against one. The jobs
    /// never wait for `FileWrapper.lock` (they only try it), and a job settles only when no other
    /// job is queued (settling waits for the queue, which a job cannot drain while it runs), so
    /// settling cannot deadlock.
    ///
    /// A process that exits normally waits for the queue (an `atexit` handler, at most 10 s). A
    /// process killed first leaves the old tree under its hidden owned name; the next atomic save
    /// of that package, by any process, sweeps it.
    final class BackgroundRemovals: @unchecked Sendable {
        static let shared = BackgroundRemovals()

        /// The linked children of one directory of the new package whose identities to read again.
        struct Group: @unchecked Sendable {
            /// The directory, as names beneath the package.
            var components: [[UInt8]]
            /// Each child and its name in that directory.
            var children: [(FileWrapper, [UInt8])]
        }

        /// What a job found for one child (`nil`: it could not be read, so the next save writes it).
        private struct Found: @unchecked Sendable {
            let wrapper: FileWrapper
            let status: FileStatus?
        }

        private let queue = DispatchQueue(label: "swift-bookmarks.documents.old-tree-removal", qos: .utility)
        private let condition = NSCondition()
        /// Jobs queued or running; guarded by `condition`.
        private var running = 0
        /// What finished jobs found, not applied yet; guarded by `condition`.
        private var found: [Found] = []
        /// Whether anything was queued since the last settle; read and written under
        /// `FileWrapper.lock` only, so the settle of every call costs one load when idle.
        private var unsettled = false

        private static let exitHandler: Void = {
            atexit { BackgroundRemovals.shared.waitBeforeExit() }
        }()

        /// Queues removing `oldName` in `parent`, then reading the identities of `groups` in the new
        /// `package`. The caller holds `FileWrapper.lock`. The current task's syscall observer (an
        /// audit log, fault injection) goes with the job.
        func enqueue(removing oldName: [UInt8], in parent: Directory, thenReading groups: [Group], in package: Directory) {
            _ = Self.exitHandler
            unsettled = true
            condition.withLock { running += 1 }
            let observer = SyscallSeam.observer
            queue.async { [self] in
                let results = SyscallSeam.$observer.withValue(observer) { () -> [Found] in
                    try? parent.removeAll(bytes: oldName)
                    return Self.identities(of: groups, in: package)
                }
                condition.withLock {
                    found += results
                    running -= 1
                    condition.broadcast()
                }
                // Apply now if nobody is using wrappers and no job waits behind this one;
                // otherwise the last job, or the next settle, does. Settling waits for every
                // queued job, and a job queued behind this one on the serial queue cannot start
                // before this one returns: settling here then never ended, holding
                // `FileWrapper.lock`. No job is queued meanwhile: that needs the lock.
                if FileWrapper.lock.try() {
                    if condition.withLock({ running == 0 }) { settle() }
                    FileWrapper.lock.unlock()
                }
            }
        }

        /// Waits for every queued job and records what they found. The caller holds
        /// `FileWrapper.lock`.
        func settle() {
            guard unsettled else { return }
            let results = condition.withLock { () -> [Found] in
                while running > 0 { condition.wait() }
                defer { found = [] }
                return found
            }
            unsettled = false
            for result in results {
                result.wrapper.snapshot = result.status.map(Snapshot.init)
                if let status = result.status { result.wrapper.storedAttributes = FileWrapper.attributes(of: status) }
            }
        }

        private func waitBeforeExit() {
            let deadline = Date(timeIntervalSinceNow: 10)
            condition.withLock {
                while running > 0, condition.wait(until: deadline) {}
            }
        }

        private static func identities(of groups: [Group], in package: Directory) -> [Found] {
            var results: [Found] = []
            for group in groups {
                let directory: Directory? =
                    group.components.isEmpty
                    ? package
                    : try? package.subdirectory(
                        FilePath(bytes: group.components.joined(separator: [0x2F]).map { $0 }),
                        policy: ResolutionPolicy(scope: .beneath, refusesSymlinks: true))
                for (wrapper, name) in group.children {
                    results.append(Found(wrapper: wrapper, status: directory.flatMap { try? $0.descriptor.statusOfChild(name) }))
                }
            }
            return results
        }
    }

    extension FileWrapper {
        /// Waits until every old package tree left by a save with
        /// ``WritingOptions/removingOldTreeInBackground`` is removed, and the saved wrappers know
        /// their children's identities again. Any other ``FileWrapper`` call does this first too;
        /// this is for code that looks at the file system itself, such as a test listing the
        /// package's parent directory.
        public static func waitForBackgroundRemovals() {
            lock.withLock { BackgroundRemovals.shared.settle() }
        }
    }
#endif
