// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A value behind an `NSLock`, for tests: the lock ThreadSanitizer can see (it cannot see
/// `Synchronization.Mutex`, whose futex calls are in the uninstrumented runtime), so the
/// sanitizer run of the concurrency suites reports real races only.
public final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
