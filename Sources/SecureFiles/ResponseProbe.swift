// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Asks a volume whether it answers, from a child process, so that a volume which does not can
/// never leave a thread of this process stuck (`cls_spawn_response_probe`).
///
/// A thread waiting for a FUSE daemon that stopped answering cannot be killed, and a process
/// cannot finish exiting while one of its threads waits: the exit would hang until the daemon
/// answers, and so would the shell or supervisor waiting for it. A probe child that gets stuck is
/// sent SIGKILL (which it acts on once the volume answers or goes away) and left behind; it is
/// reaped later with ``reap(_:)``.
package enum ResponseProbe {
    /// What the probe learnt.
    package enum Outcome: Sendable, Equatable {
        /// The volume answered `statfs` (and the `statx` of the path, when one was given).
        case answered
        /// No answer within the timeout; the child (this pid) is still waiting and was sent SIGKILL.
        case silent(pid_t)
        /// The caller stopped waiting (cancelled); the child (this pid) was sent SIGKILL.
        case abandoned(pid_t)
        /// The probe could not be started (`pipe2` or `fork` failed).
        case unavailable(Errno)
    }

    /// Probes `mountPoint` (and `path`, when given) and waits up to `timeout` for the answer.
    ///
    /// - Parameters:
    ///   - isCancelled: Polled every 50 ms while waiting.
    package static func probe(
        mountPoint: [UInt8], path: [UInt8]?, timeout: Duration, isCancelled: () -> Bool = { false }
    ) -> Outcome {
        var readEnd: CInt = -1
        // A path with a NUL byte would be cut short there: probe the mount point alone instead.
        let path = path.flatMap { $0.contains(0) ? nil : $0 }
        guard !mountPoint.contains(0) else { return .unavailable(.invalidArgument) }
        let pid: pid_t = withCName(mountPoint) { mount in
            if let path {
                return withCName(path) { cls_spawn_response_probe(mount, $0, &readEnd) }
            }
            return cls_spawn_response_probe(mount, nil, &readEnd)
        }
        guard pid > 0 else { return .unavailable(Errno(rawValue: errno)) }
        defer { close(readEnd) }
        let started = ContinuousClock.now
        while true {
            var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let left = timeout - (ContinuousClock.now - started)
            if left <= .zero {
                kill(pid, SIGKILL)
                return .silent(pid)
            }
            let slice = min(left, .milliseconds(50))
            let milliseconds = CInt(clamping: slice.components.seconds * 1000 + slice.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 {
                // A byte (answered) or end of file (the child died without answering: it did not
                // hang, so the volume is not what stopped it). Either way it has exited or is exiting.
                _ = waitpid(pid, nil, 0)
                return .answered
            }
            if ready < 0 && errno != EINTR {
                kill(pid, SIGKILL)
                return .silent(pid)
            }
            if isCancelled() {
                kill(pid, SIGKILL)
                return .abandoned(pid)
            }
        }
    }

    /// Reaps a probe child left behind, if it has exited.
    ///
    /// - Returns: `true` when it is gone (reaped now, or already reaped by someone else).
    package static func reap(_ pid: pid_t) -> Bool {
        let result = waitpid(pid, nil, WNOHANG)
        return result == pid || (result < 0 && errno == ECHILD)
    }
}
