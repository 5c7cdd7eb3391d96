// SPDX-License-Identifier: Apache-2.0
// SecureFiles: a value and the pthread mutex that guards it, in one allocation.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// ``Locked`` in one allocation: the value is a `ManagedBuffer`'s header and the mutex its one
/// tail element (a `ManagedBuffer` never moves, as POSIX requires of a mutex). For state made
/// with every value of a frequent type: a `Bookmark`'s derived facts took three allocations
/// with a ``Locked`` (the holder, the lock, its mutex).
///
/// `ManagedBuffer` cannot be `Sendable`, nor can a subclass; a holder that shares one between
/// threads wraps it in an `@unchecked Sendable` type. Every access goes through ``withLock(_:)``.
package final class InlineLocked<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// A lock around `value`. Inlinable, as is ``withLock(_:)``, so that a caller in another module
    /// gets them specialized for its value (unspecialized, `create` took a generic path per call).
    @inlinable
    package static func make(_ value: Value) -> InlineLocked<Value> {
        let buffer = unsafeDowncast(InlineLocked.create(minimumCapacity: 1) { _ in value }, to: InlineLocked.self)
        buffer.withUnsafeMutablePointerToElements { initializeMutex($0) }
        return buffer
    }

    deinit {
        withUnsafeMutablePointerToElements { deinitializeMutex($0) }
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
