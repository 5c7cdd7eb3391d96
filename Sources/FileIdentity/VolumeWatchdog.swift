// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs calls that touch a volume that may not answer (FUSE, network; see
/// ``MountEntry/mayBlock``) where a stuck call cannot hold the caller.
///
/// Linux cannot cancel a system call that waits for a FUSE daemon or an NFS server: a signal
/// interrupts only some of them (FUSE forwards it to the daemon, which may ignore it; once the
/// daemon has the request, even SIGKILL waits for its answer). And a process cannot finish exiting
/// while one of its threads waits so: its parent's `wait` would hang too. So each watched call:
///
/// 1. first asks the volume from a child process (``ResponseProbe``: `statfs` of the mount point,
///    `statx` of the path), waiting at most the response timeout. A child that gets no answer is
///    killed and left behind (it exits when the volume answers or goes away, and is reaped by a
///    later call), and the caller gets ``FileIdentityError/Code/volumeNotResponding``. No thread
///    of this process has touched the volume, so the process can still exit;
/// 2. then runs the call on a thread of its own, waiting for it at most until its deadline: the
///    response timeout again, extended by the search budget once a search starts
///    (``Ticket/extendDeadline(by:)``). This covers a volume that stops answering between the
///    probe and the call (then the thread is *abandoned*: it finishes when the volume answers,
///    drops its result and exits; until then the process cannot exit).
///
/// What is stuck is bounded: while a probe or thread has been stuck on a mount for longer than the
/// timeout, a new call on that mount fails at once instead of starting another. So a dead volume
/// costs at most one stuck child or thread per caller that was waiting on it when it stopped
/// answering, and none after that.
package enum VolumeWatchdog {
    /// What became of a watched call.
    package enum Outcome<Value: Sendable> {
        /// It returned in time.
        case finished(Value)
        /// The deadline passed (or an earlier call on the mount is still stuck).
        case notResponding(FileIdentityError)
        /// `isCancelled` said to stop waiting; the call was abandoned.
        case cancelled
    }

    /// Lets the watched call move its deadline (when it starts work with a budget of its own).
    package final class Ticket: Sendable {
        fileprivate let extra: Locked<Duration>

        fileprivate init() { extra = Locked(.zero) }

        /// Gives the call `duration` more before the caller gives up on it.
        package func extendDeadline(by duration: Duration) {
            extra.withLock { $0 += duration }
        }
    }

    /// What is stuck on one mount.
    struct Stuck {
        /// Threads abandoned while running a call.
        var threads = 0
        /// Probe children that got no answer, not yet reaped.
        var probes: [pid_t] = []
        /// When the oldest of them started.
        var oldest: ContinuousClock.Instant

        var isEmpty: Bool { threads == 0 && probes.isEmpty }
    }

    /// What is stuck, per mount.
    private static let abandoned = Locked<[MountID: Stuck]>([:])

    /// Reaps probe children that have exited (the volume answered at last, or went away).
    private static func reapProbes() {
        abandoned.withLock { table in
            for (mount, var stuck) in table where !stuck.probes.isEmpty {
                stuck.probes.removeAll { ResponseProbe.reap($0) }
                table[mount] = stuck.isEmpty ? nil : stuck
            }
        }
    }

    /// Records something stuck on `mount` since `started`.
    private static func recordStuck(
        _ mount: MountID, since started: ContinuousClock.Instant, thread: Bool = false, probe: pid_t? = nil
    ) {
        abandoned.withLock { table in
            var stuck = table[mount] ?? Stuck(oldest: started)
            if thread { stuck.threads += 1 }
            if let probe { stuck.probes.append(probe) }
            stuck.oldest = min(stuck.oldest, started)
            table[mount] = stuck
        }
    }

    /// The mount a watched call touches: what the watchdog keys on and names in its error.
    package struct Mount: Sendable {
        package var mountID: MountID
        package var fsType: String
        /// The mount source as text for messages (escaped where not UTF-8).
        package var source: String
        package var mountPoint: [UInt8]

        /// A mount from the table.
        package init(_ entry: MountEntry) {
            (mountID, fsType, source, mountPoint) = (entry.mountID, entry.fsType, entry.sourceString, entry.mountPoint)
        }

        /// The mount a volume was identified on.
        package init(_ volume: Volume) {
            (mountID, fsType, source, mountPoint) = (volume.mountID, volume.fsType, volume.source, volume.mountPoint)
        }
    }

    /// Threads and probe children left waiting on `mount` (for tests and diagnostics), after
    /// reaping the children that have exited.
    package static func abandonedCalls(on mount: MountID) -> (threads: Int, probes: Int) {
        reapProbes()
        return abandoned.withLock { ($0[mount]?.threads ?? 0, $0[mount]?.probes.count ?? 0) }
    }

    /// Runs `body` on its own thread, waiting for it at most `timeout` (plus what it asks for).
    ///
    /// - Parameters:
    ///   - entry: The mount the call touches.
    ///   - timeout: How long the volume may take to answer.
    ///   - path: The path the call is about, for the error.
    ///   - isCancelled: Polled every 50 ms while waiting.
    ///   - body: The call.
    package static func run<Value: Sendable>(
        on entry: Mount, timeout: Duration, path: [UInt8]?, isCancelled: () -> Bool = { false },
        _ body: @escaping @Sendable (Ticket) -> Value
    ) -> Outcome<Value> {
        let started = ContinuousClock.now
        reapProbes()
        if let stuck = abandoned.withLock({ $0[entry.mountID] }), started - stuck.oldest >= timeout {
            let earlier = stuck.threads + stuck.probes.count
            return .notResponding(notResponding(entry, path: path, waited: started - stuck.oldest, earlier: earlier))
        }
        Audit.intent("VolumeWatchdog.probe", entry.mountPoint, ["fsType": entry.fsType, "path": path.map { PathBytes($0).escaped } ?? ""])
        switch ResponseProbe.probe(mountPoint: entry.mountPoint, path: path, timeout: timeout, isCancelled: isCancelled) {
        case .answered, .unavailable:
            break  // Unavailable (no process to be had): the thread below still bounds the caller's wait.
        case .silent(let pid):
            recordStuck(entry.mountID, since: started, probe: pid)
            return .notResponding(notResponding(entry, path: path, waited: ContinuousClock.now - started, earlier: 0))
        case .abandoned(let pid):
            recordStuck(entry.mountID, since: started, probe: pid)
            return .cancelled
        }
        // The volume answered: the call gets the whole timeout of its own.
        let callStarted = ContinuousClock.now
        // The audit log (a task-local) follows the call onto its thread.
        let observer = SyscallSeam.observer
        let job = Job<Value>(mount: entry.mountID) { ticket in
            SyscallSeam.$observer.withValue(observer) { body(ticket) }
        }
        guard job.start() else {
            // No thread to be had: running the call here could block the caller forever.
            return .notResponding(FileIdentityError(
                .volumeNotResponding,
                "no thread could be started to call \(entry.fsType) volume at \(PathBytes(entry.mountPoint).escaped) safely",
                path: path.map { FilePath(bytes: $0) }))
        }
        while true {
            let slice = Duration.milliseconds(50)
            let outcome: Outcome<Value>? = job.state.wait(atMost: slice, until: { $0.result != nil }) { state, done in
                if done, let result = state.result { return .finished(result) }
                let waited = ContinuousClock.now - callStarted
                let cancelled = isCancelled()
                guard cancelled || waited >= timeout + job.ticket.extra.withLock({ $0 }) else { return nil }
                state.abandoned = true
                recordStuck(job.mount, since: callStarted, thread: true)
                return cancelled ? .cancelled : .notResponding(notResponding(entry, path: path, waited: waited, earlier: 0))
            }
            if let outcome { return outcome }
        }
    }

    /// Called by an abandoned job when its call finally returns.
    fileprivate static func release(_ mount: MountID) {
        abandoned.withLock { table in
            guard var stuck = table[mount] else { return }
            stuck.threads -= 1
            table[mount] = stuck.isEmpty ? nil : stuck
        }
    }

    static func notResponding(_ entry: Mount, path: [UInt8]?, waited: Duration, earlier: Int) -> FileIdentityError {
        let place = "\(entry.fsType) volume \(entry.source) at \(PathBytes(entry.mountPoint).escaped)"
        let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
        let waitedText = tenthsText(seconds)
        let message = earlier > 0
            ? "\(place) is not responding: \(earlier) earlier call\(earlier == 1 ? " has" : "s have") waited \(waitedText) s for it"
            : "\(place) did not respond within \(waitedText) s"
        var error = FileIdentityError(.volumeNotResponding, message, path: path.map { FilePath(bytes: $0) })
        error.mountPoint = entry.mountPoint
        return error
    }
}

/// Seconds with one decimal, without Foundation.
private func tenthsText(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

/// One watched call: its thread, its result and whether the caller gave up on it.
private final class Job<Value: Sendable>: Sendable {
    struct State {
        var result: Value?
        var abandoned = false
    }

    let mount: MountID
    let body: @Sendable (VolumeWatchdog.Ticket) -> Value
    let state = Condition(State())
    let ticket = VolumeWatchdog.Ticket()

    init(mount: MountID, body: @escaping @Sendable (VolumeWatchdog.Ticket) -> Value) {
        self.mount = mount
        self.body = body
    }

    /// Starts a detached thread for the call (it holds the job until it finishes).
    func start() -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, CInt(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(JobRunner(run: { self.execute() })).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let runner = Unmanaged<JobRunner>.fromOpaque(context).takeRetainedValue()
            runner.run()
            return nil
        }, context)
        if started != 0 {
            Unmanaged<JobRunner>.fromOpaque(context).release()
            return false
        }
        return true
    }

    /// On the job's thread: the call, then its result (dropped if nobody waits any more).
    func execute() {
        let value = body(ticket)
        let wasAbandoned = state.update { state in
            state.result = value
            return state.abandoned
        }
        if wasAbandoned { VolumeWatchdog.release(mount) }
    }
}

/// The type-erased closure a thread runs.
private final class JobRunner: Sendable {
    let run: @Sendable () -> Void
    init(run: @escaping @Sendable () -> Void) { self.run = run }
}

extension VolumeWatchdog {
    /// Runs `body` here when `path` is on a volume that answers by itself, or watched (probe,
    /// then a thread, each with `timeout`) when it is on a FUSE or network mount.
    ///
    /// - Parameters:
    ///   - path: The path `body` touches; a relative one is taken from the working directory.
    ///   - volumes: The mount table to decide with.
    /// - Returns: `body`'s value, or ``FileIdentityError/Code/volumeNotResponding``.
    package static func guarding<Value: Sendable>(
        path: [UInt8], volumes: MountedVolumes, timeout: Duration, _ body: @escaping @Sendable () -> Value
    ) -> Result<Value, FileIdentityError> {
        guard case .mayBlock(let entry) = volumes.hazard(of: path) else { return .success(body()) }
        switch run(on: Mount(entry), timeout: timeout, path: path, { _ in body() }) {
        case .finished(let value): return .success(value)
        case .notResponding(let error): return .failure(error)
        case .cancelled:
            return .failure(FileIdentityError(.volumeNotResponding, "cancelled while waiting for the volume", path: FilePath(bytes: path)))
        }
    }
}
