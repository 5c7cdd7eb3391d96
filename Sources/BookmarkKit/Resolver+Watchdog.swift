// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles

extension Resolver {
    /// Runs the steps of a resolution that touch the volume: here, when the path is on a volume
    /// that answers by itself; on a watched thread (``VolumeWatchdog``) when it is on a FUSE or
    /// network mount; not at all beneath an automount trigger unless mounting is allowed.
    ///
    /// The check reads the mount table only, so a path on an ordinary volume costs one test.
    mutating func guarded<Value: Sendable>(
        _ start: Start, _ body: @escaping @Sendable (inout Resolver, Start) throws(BookmarkError) -> Value
    ) throws(BookmarkError) -> Value {
        switch directory.hazard(of: start.current) {
        case .none:
            return try body(&self, start)
        case .automount(let entry):
            guard options.allowMounting else {
                throw error(
                    .volumeNotMounted,
                    "\(PathBytes(start.current).escaped) is beneath the automount point \(PathBytes(entry.mountPoint).escaped), where nothing is mounted; looking it up would mount it (allowMounting permits that)")
            }
            return try watched(on: entry, start, body)
        case .mayBlock(let entry):
            return try watched(on: entry, start, body)
        }
    }

    /// `body` under the watchdog, with the response timeout, extended by the search budget when a
    /// search starts. A timeout or cancellation is reported as this resolution's error (recorded
    /// path, volume name and UUID).
    private mutating func watched<Value: Sendable>(
        on entry: MountEntry, _ start: Start,
        _ body: @escaping @Sendable (inout Resolver, Start) throws(BookmarkError) -> Value
    ) throws(BookmarkError) -> Value {
        let before = self
        let cancellation = options.cancellation
        do throws(BookmarkError) {
            let (resolver, value) = try VolumeGuard.watched(
                on: VolumeWatchdog.Mount(entry), timeout: options.volumeResponseTimeout, path: start.current,
                isCancelled: { cancellation?.isCancelled == true || Task.isCancelled }
            ) { ticket throws(BookmarkError) -> (Resolver, Value) in
                var resolver = before
                resolver.searchStarts = { ticket.extendDeadline(by: $0) }
                let value = try body(&resolver, start)
                resolver.searchStarts = nil
                return (resolver, value)
            }
            self = resolver
            return value
        } catch {
            guard error.code == .volumeNotResponding || error.code == .cancelled, error.volumeUUID == nil else { throw error }
            var failure = self.error(error.code, error.message)
            failure.mountPoint = error.mountPoint
            throw failure
        }
    }
}

/// The same guard for calls that are not resolutions (creation, identification, opening).
enum VolumeGuard {
    /// Runs `body` here, or under the watchdog when `path` is on a volume that may block.
    ///
    /// - Parameters:
    ///   - path: The path the call touches (a relative one is taken from the working directory).
    ///   - volumes: The mount table to read.
    ///   - timeout: The response timeout.
    ///   - allowMounting: Whether a path beneath an automount trigger may be looked up.
    static func run<Value: Sendable>(
        touching path: [UInt8], volumes: MountedVolumes, timeout: Duration, allowMounting: Bool = false,
        _ body: @escaping @Sendable () throws(BookmarkError) -> Value
    ) throws(BookmarkError) -> Value {
        let entry: MountEntry
        switch volumes.hazard(of: path) {
        case .none: return try body()
        case .automount(let trigger):
            guard allowMounting else {
                throw BookmarkError(
                    .volumeNotMounted,
                    "\(PathBytes(path).escaped) is beneath the automount point \(PathBytes(trigger.mountPoint).escaped), where nothing is mounted; looking it up would mount it",
                    lastKnownPath: path)
            }
            entry = trigger
        case .mayBlock(let mount): entry = mount
        }
        return try watched(on: VolumeWatchdog.Mount(entry), timeout: timeout, path: path) { _ throws(BookmarkError) in try body() }
    }

    /// Runs `body` under the watchdog on `mount`, whatever its kind.
    static func run<Value: Sendable>(
        on mount: VolumeWatchdog.Mount, timeout: Duration, path: [UInt8],
        _ body: @escaping @Sendable () throws(BookmarkError) -> Value
    ) throws(BookmarkError) -> Value {
        try watched(on: mount, timeout: timeout, path: path) { _ throws(BookmarkError) in try body() }
    }

    /// Runs `body` under the watchdog when `volume` may block (opening what a resolution found).
    static func run<Value: Sendable>(
        on volume: Volume, timeout: Duration, path: [UInt8],
        _ body: @escaping @Sendable () throws(BookmarkError) -> Value
    ) throws(BookmarkError) -> Value {
        guard volume.mayBlock else { return try body() }
        return try watched(on: VolumeWatchdog.Mount(volume), timeout: timeout, path: path) { _ throws(BookmarkError) in try body() }
    }

    /// `body` on a watched thread (``VolumeWatchdog``): its result, `volumeNotResponding` (with
    /// the mount point) or `cancelled`.
    static func watched<Value: Sendable>(
        on entry: VolumeWatchdog.Mount, timeout: Duration, path: [UInt8],
        isCancelled: () -> Bool = { Task.isCancelled },
        _ body: @escaping @Sendable (VolumeWatchdog.Ticket) throws(BookmarkError) -> Value
    ) throws(BookmarkError) -> Value {
        let outcome = VolumeWatchdog.run(on: entry, timeout: timeout, path: path, isCancelled: isCancelled) {
            ticket -> Result<Value, BookmarkError> in
            do throws(BookmarkError) {
                return .success(try body(ticket))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .finished(let result): return try result.get()
        case .notResponding(let cause): throw BookmarkError(cause, lastKnownPath: path)
        case .cancelled:
            throw BookmarkError(.cancelled, "cancelled while waiting for \(entry.fsType) volume at \(PathBytes(entry.mountPoint).escaped)", lastKnownPath: path)
        }
    }
}
