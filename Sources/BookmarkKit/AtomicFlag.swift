// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A set-once flag safe to share between tasks.
final class AtomicFlag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set() { storage.store(true, ordering: .releasing) }
    var value: Bool { storage.load(ordering: .acquiring) }
}
