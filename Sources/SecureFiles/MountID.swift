// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's reusable id of a mount: the first field of `/proc/self/mountinfo`.
///
/// `name_to_handle_at(2)` reports it with every file handle, and `statx(2)` with `STATX_MNT_ID`
/// (Linux 5.8). It names a mount only while that mount exists: after an unmount the kernel hands
/// the number to the next mount, so a stored `MountID` can name another file system later. Use it
/// to find a mount in the current mount table, and ``UniqueMountID`` to recognise a mount again.
public struct MountID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The number as the kernel reports it.
    public var rawValue: Int32

    /// Wraps a number the kernel reported as a reusable mount id.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The number, as mountinfo prints it.
    public var description: String { String(rawValue) }
}

/// The kernel's unique id of a mount: `statx(2)` with `STATX_MNT_ID_UNIQUE` (Linux 6.8).
///
/// A 64-bit id that is never given to another mount during the same boot, so a stored
/// `UniqueMountID` either names the same mount or no mount at all: a remount, an unmount or a
/// reboot gives the volume a new one. (Kernels before 6.8 report only the reusable ``MountID``.)
public struct UniqueMountID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The number as the kernel reports it.
    public var rawValue: UInt64

    /// Wraps a number the kernel reported as a unique mount id.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The number in decimal.
    public var description: String { String(rawValue) }

    /// The reusable id of the mount with this unique id, asked of the mount namespace with
    /// `statmount` (Linux 6.8), which touches no file system: `ENOENT` when no such mount exists
    /// (unmounted since), `ENOSYS` on older kernels.
    package func reusableID() -> Result<MountID, Errno> {
        var old: UInt32 = 0
        guard cls_statmount_old_id(rawValue, &old) == 0 else { return .failure(Errno(rawValue: errno)) }
        return .success(MountID(rawValue: Int32(bitPattern: old)))
    }
}
