// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles

/// What one bookmark's resolution learnt from one mount table when it found the object unmoved,
/// kept so that the next resolution against the same table is one `statx` and a comparison.
///
/// Everything kept is a function of the recorded facts and the table alone: the path tried first
/// (the recorded path re-rooted at the volume's mount point), that no mount on it may block (so
/// the resolution runs here, with no watchdog), the mount the object was on, and what the result
/// says beside the object's status (its volume, its changes, whether it is in a Trash, its
/// notes). So a later resolution against the same table reaches the same result whenever the
/// same `statx` proves the same thing: the recorded inode and birth time, on the same mount. Any
/// other answer (another object, no object, another mount), a cancelled resolution, or another
/// table (after a mount or unmount `MountedVolumes.shared()` is a new instance) takes the whole
/// resolution, which may keep a new memo.
///
/// The unmoved case is most resolutions: an app resolves its stored bookmarks at every launch or
/// access. Without the memo each one found the volume by UUID, re-rooted the path, checked the
/// path against the table's blocking mounts, looked the mount up by id and built the result's
/// changes again: about a sixth of `URL(resolvingBookmarkData:)` (Docs/PERFORMANCE.md).
final class UnmovedMemo: Sendable {
    /// ``MountedVolumes/serial`` of the table this was learnt from.
    let tableSerial: UInt64
    /// The path tried first.
    let current: [UInt8]
    /// The result the memo was made from: every field but ``Resolution/fileID`` is reused, and its
    /// identity gives the mount and volume the object was found on.
    let result: Resolution

    /// The memo of `result`, a resolution of `recorded` against `directory` that started at
    /// `current`; `nil` when it is not one a `statx` alone can repeat: not found at `current` by
    /// path, no recorded inode and birth time to prove it, or a path where a mount may block.
    init?(_ result: Resolution, of recorded: Recorded, current: [UInt8], directory: MountedVolumes) {
        guard result.matchedBy == .path, result.entriesSearched == 0, recorded.inode != nil, recorded.birthTime != nil,
            result.fileID.birthTime == recorded.birthTime, !directory.hazard(of: current).needsCare
        else { return nil }
        tableSerial = directory.serial
        self.current = current
        self.result = result
    }

    /// The resolution of `recorded` against the table numbered `tableSerial` when its object is
    /// still at ``current``: one `statx`. `nil` when anything else is there (the caller then
    /// resolves in full).
    func unmoved(_ recorded: Recorded, tableSerial serial: UInt64) -> Resolution? {
        let found = result.fileID
        guard serial == tableSerial, let inode = recorded.inode, let birthTime = recorded.birthTime,
            case .success(let status) = FileStatus.lookup(pathBytes: current, followSymlinks: false),
            status.inode == inode, status.birthTime == birthTime, found.isOnMount(of: status)
        else { return nil }
        let id = FileID.known(
            status, on: found.volume, mountID: found.mountID,
            generation: recorded.generation.map { UInt32(truncatingIfNeeded: $0) }, handle: recorded.handle)
        guard recorded.matches(id) else { return nil }
        var resolution = result
        resolution.fileID = id
        return resolution
    }
}
