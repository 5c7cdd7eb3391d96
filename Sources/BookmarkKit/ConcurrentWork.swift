// SPDX-License-Identifier: Apache-2.0
import Dispatch
import SecureFiles

/// Work spread over the cores (`DispatchQueue.concurrentPerform`) that keeps the caller's syscall
/// observer.
///
/// The observer (``SecureFiles/SyscallSeam/observer``: an audit log, an injected fault) is a
/// task-local value, and Dispatch's worker threads do not inherit it: without this, a batch's
/// checks and walk on other threads would escape the log a test installed around the call. Each
/// iteration binds the caller's observer on the thread that runs it.
enum ConcurrentWork {
    /// Runs `body` for `0..<iterations` on as many threads as Dispatch gives, the caller's one
    /// among them; returns when all are done.
    static func perform(iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 0 else { return }
        let observer = SyscallSeam.observer
        // Called concurrently only for distinct iterations; what each touches is the caller's concern.
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            SyscallSeam.$observer.withValue(observer) { body(index) }
        }
    }
}
