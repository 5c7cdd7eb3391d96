// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Dispatch
import Foundation
import Synchronization

/// Swaps two directory entries with `renameat2(RENAME_EXCHANGE)` on its own thread, as fast as it
/// can, until stopped: the race harness of the secure layer's and the resolve-and-open tests. The
/// tree is left as it was (an even number of successful swaps).
public final class RenameExchanger: Sendable {
    let running = Atomic<Bool>(true)
    let swaps = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)

    /// Starts swapping `firstName` in `firstDirectory` with `secondName` in `secondDirectory`.
    public init(_ firstDirectory: String, _ firstName: String, _ secondDirectory: String, _ secondName: String) {
        let fd1 = open(firstDirectory, cls_o_path() | O_DIRECTORY | O_CLOEXEC)
        let fd2 = open(secondDirectory, cls_o_path() | O_DIRECTORY | O_CLOEXEC)
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                if cls_renameat2(fd1, firstName, fd2, secondName, 2) == 0 { swaps.add(1, ordering: .relaxed) }
            }
            if swaps.load(ordering: .relaxed) % 2 == 1 { _ = cls_renameat2(fd1, firstName, fd2, secondName, 2) }
            close(fd1)
            close(fd2)
            done.signal()
        }
        thread.start()
    }

    /// Stops swapping and returns how many swaps succeeded.
    public func stop() -> Int {
        running.store(false, ordering: .relaxed)
        done.wait()
        return swaps.load(ordering: .relaxed)
    }
}
