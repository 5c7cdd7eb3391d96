// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

extension MountedVolumes {
    /// The process's shared table of mounted volumes: what every call given no table uses.
    ///
    /// It is read once, and afterwards revalidated on each call by one non-blocking check of an
    /// open `/proc/self/mountinfo`, on which the kernel signals every mount and unmount in this
    /// mount namespace, by any process (`POLLPRI`). Only then is the table read again (into a new
    /// `MountedVolumes`: callers holding the old one keep a consistent snapshot). So a mount made by
    /// another process is seen by the very next call, and an unchanged table costs one
    /// `epoll_wait` (the descriptor is in an epoll set of its own: about half the cost of `poll`).
    ///
    /// - After `fork`, the child reads its own table on its first call (a `MADV_WIPEONFORK` marker
    ///   tells it apart without a system call): the inherited descriptor shares the parent's
    ///   "seen" state, so polling it would steal the parent's notifications.
    /// - After `setns` or `unshare` of the mount namespace (only a single-threaded process can make
    ///   them), call ``resetShared()``: the open `mountinfo` still describes the old namespace and
    ///   nothing signals the switch.
    ///
    /// - Throws: ``FileIdentityError`` when the table cannot be read or parsed.
    public static func shared() throws(FileIdentityError) -> MountedVolumes {
        try SharedMountTable.instance.current()
    }

    /// Forgets the shared table: the next ``shared()`` reads the mount table afresh. Needed only
    /// after the process moved to another mount namespace (`setns`, `unshare`).
    public static func resetShared() {
        SharedMountTable.instance.reset()
    }
}

/// The state behind ``MountedVolumes/shared()``.
final class SharedMountTable: Sendable {
    static let instance = SharedMountTable()

    struct State {
        /// `/proc/self/mountinfo`, open: the kernel signals each mount-table change on it.
        var watch: OwnedDescriptor?
        /// `watch` alone, asked with one `epoll_wait` per call (half the cost of a `poll`).
        var signal: ReadinessSet?
        /// The table read through it.
        var volumes: MountedVolumes?
        /// Made with the state: false in a forked child.
        var marker: ForkMarker?
    }

    private let state = Locked(State())

    func reset() {
        state.withLock { $0 = State() }
    }

    func current() throws(FileIdentityError) -> MountedVolumes {
        try state.withLock { (state: inout State) throws(FileIdentityError) -> MountedVolumes in
            if let marker = state.marker, !marker.isOwnProcess {
                // A forked child: drop (do not close: the parent's copy is the same open file,
                // and closing ours does not affect it, but polling it would) and start over.
                state = State()
            }
            if let signal = state.signal, let volumes = state.volumes {
                if (try? signal.isQuiet()) == true { return volumes }
            }
            let (watch, signal, table) = try Self.read()
            let volumes = MountedVolumes(table: table)
            state.watch = watch
            state.signal = signal
            state.volumes = volumes
            if state.marker == nil { state.marker = try? ForkMarker() }
            return volumes
        }
    }

    /// Opens `/proc/self/mountinfo`, adds it to a new epoll set, and only then parses it through
    /// that descriptor: a change after the add is reported by the set, and one between the open
    /// and the add (which the add takes without reporting it) is in what is read.
    static func read() throws(FileIdentityError) -> (OwnedDescriptor, ReadinessSet, MountTable) {
        let (descriptor, signal, bytes) = try FileIdentityError.wrapping {
            () throws(FileSystemError) -> (OwnedDescriptor, ReadinessSet, [UInt8]) in
            let descriptor = try Directory.current.open(MountTable.path, options: [.readOnly])
            let signal = try ReadinessSet()
            try signal.add(descriptor, events: ReadinessSet.priority, tag: 0)
            return (descriptor, signal, try descriptor.readToEnd())
        }
        return (descriptor, signal, try MountTable.parsing(bytes))
    }
}
