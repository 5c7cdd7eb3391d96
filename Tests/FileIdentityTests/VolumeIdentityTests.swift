// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// The volume UUID and its source, per file system, on real loop-mounted volumes.
@Suite("Volume identity on real volumes", .serialized, .requiresRealVolumes)
struct VolumeIdentityTests {
    @Test(
        "UUID and its source per file system", .requiresFileSystems(.xfs, .btrfs),
        arguments: [
            (FixtureFileSystem.ext4, UUIDSource.fsIocGetFSUUID),
            (.xfs, .fsIocGetFSUUID),
            (.btrfs, .btrfsIoctl),
        ])
    func uuidAndSource(kind: FixtureFileSystem, expected: UUIDSource) throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(kind, uuid: uuid, label: "lbl\(kind)") { fixture in
            let volume = try volumeAt(fixture)
            #expect(volume.uuid == uuid)
            #expect(volume.uuidSource == expected)
            #expect(volume.uuidVerified)
            #expect(volume.isPersistent)
            #expect(volume.label == "lbl\(kind)")
            #expect(volume.fsType == kind.rawValue)
            #expect(volume.blockDevice == fixture.loopDevice || kind == .btrfs)
        }
    }

    @Test("tmpfs has no persistent identity, only a per-mount session UUID")
    func tmpfs() throws {
        try LoopVolume.withVolume(.tmpfs, label: "scratch") { fixture in
            let volume = try volumeAt(fixture)
            #expect(volume.uuid == nil)
            #expect(volume.uuidSource == .sourceAndType)
            #expect(!volume.isPersistent)
            #expect(volume.category == .memory)
            let first = volume.sessionUUID
            #expect(first != nil, "FS_IOC_GETFSUUID gives tmpfs a random per-mount UUID (Linux 6.9+)")
            let elsewhere = fixture.directory.appendingPathComponent("again")
            try fixture.unmount()
            try fixture.mount(at: elsewhere)
            #expect(try volumeAt(fixture).sessionUUID != first)
        }
    }

    @Test("exFAT through FUSE has no ioctl UUID: libblkid probes the device (root)", .requiresFileSystems(.exfat))
    func exfatThroughBlkid() throws {
        try LoopVolume.withVolume(.exfat, label: "fatlabel") { fixture in
            let volume = try volumeAt(fixture)
            #expect(volume.fsType == "fuseblk")
            #expect(volume.uuid == fixture.uuid)
            #expect(fixture.uuid.count == 9, "an exFAT serial looks like XXXX-XXXX")
            #expect(volume.uuidSource == .blkidProbe)
            #expect(volume.uuidVerified)
            #expect(volume.isPersistent)
            #expect(volume.label == "fatlabel")
        }
    }

    @Test("the same UUID after unmount and remount on another loop device and mount point")
    func remountElsewhere() throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(.ext4, uuid: uuid) { fixture in
            let before = try volumeAt(fixture)
            let firstDevice = fixture.loopDevice
            try fixture.unmount()
            let elsewhere = fixture.directory.appendingPathComponent("elsewhere")
            try fixture.mount(at: elsewhere, newLoopDevice: true)
            #expect(fixture.loopDevice != firstDevice)
            let after = try volumeAt(fixture)
            #expect(after.uuid == uuid)
            #expect(after.key == before.key)
            #expect(after.mountPointPath.string == elsewhere.path)
            #expect(after.mountID != before.mountID || after.blockDevice != before.blockDevice)
            guard case .mounted(let located) = try MountedVolumes().locate(uuid: uuid.uppercased()) else {
                Issue.record("locate did not find the remounted volume")
                return
            }
            #expect(located.mountPointPath.string == elsewhere.path)
        }
    }

    @Test("an all-zero UUID is never reported as the volume's UUID")
    func allZeroUUID() throws {
        try LoopVolume.withVolume(.ext4, uuid: "clear") { fixture in
            let volume = try volumeAt(fixture)
            #expect(volume.uuid != "00000000-0000-0000-0000-000000000000")
            #expect(volume.uuid != "00000000:00000000", "an all-zero UUID folds to an all-zero f_fsid")
            #expect(volume.uuidSource != .fsIocGetFSUUID && volume.uuidSource != .ext4Ioctl)
            #expect(volume.uuid == nil || volume.uuidSource == .fsid || volume.uuidSource == .blkidProbe)
        }
    }

    @Test("the ioctls refused (EPERM injected): libblkid's probe answers, then f_fsid")
    func ioctlsRefused() throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(.ext4, uuid: uuid) { fixture in
            let trace = AuditLog(level: .calls, faults: [
                SyscallFault(call: "ioctl(FS_IOC_GETFSUUID)", errno: .notPermitted),
                SyscallFault(call: "ioctl(EXT4_IOC_GETFSUUID)", errno: .notPermitted),
            ])
            let viaBlkid = try SyscallSeam.$observer.withValue(trace) { try volumeAt(fixture) }
            #expect(viaBlkid.uuid == uuid)
            #expect(viaBlkid.uuidSource == .blkidProbe)
            #expect(trace.calls.contains { $0.name == "blkid_do_safeprobe" })

            // Device unreadable too, and no cache entry: the ext4 f_fsid is the last resort.
            trace.inject(SyscallFault(call: "blkid_do_safeprobe", errno: .noSuchFileOrDirectory))
            let viaFsid = try SyscallSeam.$observer.withValue(trace) { try volumeAt(fixture) }
            #expect(viaFsid.uuidSource == .fsid)
            #expect(viaFsid.uuid == viaFsid.fsid?.description)
            #expect(viaFsid.uuid == ext4FoldedFSID(uuid))
        }
    }

    @Test("locate: mounted, attached but not mounted, not mounted")
    func locate() throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(.ext4, uuid: uuid) { fixture in
            guard case .mounted = try MountedVolumes().locate(uuid: uuid) else {
                Issue.record("not located while mounted")
                return
            }
            // Unmount but keep the loop device attached.
            try fixture.unmount(keepDevice: true)
            let attached = try MountedVolumes().locate(uuid: uuid)
            #expect(attached == .attachedNotMounted(device: fixture.loopDevice ?? "?", verified: true))
            try fixture.unmount()
            #expect(try MountedVolumes().locate(uuid: uuid) == .notMounted)
        }
        #expect(try MountedVolumes().locate(uuid: UUID().uuidString) == .notMounted)
    }

    @Test("a bind mount of a subtree does not shadow the whole-volume mount")
    func bindMount() throws {
        let uuid = UUID().uuidString.lowercased()
        try LoopVolume.withVolume(.ext4, uuid: uuid) { fixture in
            let sub = fixture.path("inner")
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            let bind = fixture.directory.appendingPathComponent("bind").path
            try FileManager.default.createDirectory(atPath: bind, withIntermediateDirectories: true)
            try Shell.check(["mount", "--bind", sub, bind])
            defer { _ = try? Shell.run(["umount", bind]) }
            guard case .mounted(let volume) = try MountedVolumes().locate(uuid: uuid) else {
                Issue.record("not located")
                return
            }
            #expect(volume.mountPointPath.string == fixture.mountPoint?.path)
            #expect(volume.root == Array("/".utf8))
            let bound = try FileID.identify(FilePath(bind))
            #expect(bound.volume.uuid == uuid)
            #expect(PathBytes(bound.volume.root).escaped == "/inner")
        }
    }
}

/// The volume mounted at the fixture's mount point.
func volumeAt(_ fixture: LoopVolume) throws -> Volume {
    let directory = try MountedVolumes()
    let point = try #require(fixture.mountPoint?.path)
    let entry = try #require(directory.table.entries.last { PathBytes($0.mountPoint).escaped == point })
    return directory.volume(of: entry)
}

/// ext4's f_fsid: the two little-endian halves of the UUID XORed (fs/ext4/super.c).
func ext4FoldedFSID(_ uuid: String) -> String {
    let hex = Array(uuid.filter(\.isHexDigit))
    let bytes = stride(from: 0, to: 32, by: 2).map { UInt8(String(hex[$0..<$0 + 2]), radix: 16) ?? 0 }
    func le32(_ offset: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) } }
    let low = le32(0) ^ le32(8)
    let high = le32(4) ^ le32(12)
    func hex32(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }
    return hex32(low) + ":" + hex32(high)
}
