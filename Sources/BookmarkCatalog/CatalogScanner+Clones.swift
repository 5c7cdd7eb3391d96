// SPDX-License-Identifier: Apache-2.0
import FileIdentity

extension CatalogScanner {
    /// Mount points where another device carries a file system with the root volume's UUID: a
    /// cloned drive (a `dd` copy) mounted beside the original. The catalog keys a volume by its
    /// UUID and matches entries by inode, so the two would be merged silently (Docs/CATALOG.md,
    /// "Where identity matching cannot work"). A bind mount or a btrfs subvolume of the same file
    /// system is on the same device, and is not one. Only mounts of the same file-system type
    /// that cannot block (not FUSE, not network) are identified.
    static func otherDevicesWithUUID(of volume: Volume) -> [[UInt8]] {
        guard volume.isPersistent, let uuid = volume.uuid, let volumes = try? MountedVolumes(),
            let own = volumes.table.entry(mountID: volume.mountID)
        else { return [] }
        var found: [[UInt8]] = []
        for entry in volumes.table.volumes
        where entry.device != own.device && entry.fsType == volume.fsType && !entry.mayBlock && entry.isWholeFileSystem {
            let other = volumes.volume(of: entry)
            if other.isPersistent, other.matches(uuid: uuid), !found.contains(entry.mountPoint) { found.append(entry.mountPoint) }
        }
        return found
    }
}
