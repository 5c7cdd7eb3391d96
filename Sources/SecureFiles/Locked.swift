// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value guarded by a `pthread_mutex_t`: the lock every library type uses for shared state.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer
/// cannot see, so every access it guards is reported as a race, and the sanitizer run (which is
/// part of `Tools/test`) would be noise. A pthread mutex is intercepted by the sanitizer, and
/// uncontended it costs the same (one atomic compare-and-swap each way).
///
/// The mutex lives in its own allocation, never moved, as POSIX requires.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = makeMutex()
    }

    deinit { destroyMutex(mutex) }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// A value guarded by a mutex, with a condition variable to wait for it to change, on the
/// monotonic clock (a wall-clock step never shortens or stretches a wait).
package final class Condition<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    /// A condition around `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = makeMutex()
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        destroyMutex(mutex)
    }

    /// Changes the value under the lock and wakes every waiter.
    package func update<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return body(&value)
    }

    /// Runs `body` under the lock, without waking anyone.
    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }

    /// Waits, under the lock, until `isDone` holds or `timeout` has passed (spurious wake-ups are
    /// absorbed), then runs `body` with the value, still under the lock.
    ///
    /// - Returns: `body`'s result and whether `isDone` held when it ran.
    package func wait<Result>(
        atMost timeout: Duration, until isDone: (Value) -> Bool, then body: (inout Value, Bool) -> Result
    ) -> Result {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        // Capped at a year: a deadline past `time_t`'s range would overflow.
        let (seconds, attoseconds) = min(max(timeout, .zero), .seconds(365 * 86_400)).components
        let nanoseconds = deadline.tv_nsec + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isDone(value) {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        let done = isDone(value)
        return body(&value, done)
    }
}

/// A mutex in an allocation of its own (POSIX forbids moving one).
private func makeMutex() -> UnsafeMutablePointer<pthread_mutex_t> {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    initializeMutex(mutex)
    return mutex
}

private func destroyMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    deinitializeMutex(mutex)
    mutex.deallocate()
}

/// Makes a mutex in memory that will not move (``Locked``'s own allocation, ``InlineLocked``'s
/// tail element).
@usableFromInline
func initializeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
}

/// Destroys a mutex made by ``initializeMutex(_:)``, leaving its memory to its owner.
@usableFromInline
func deinitializeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
}
