// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import Testing

/// Parsing `/proc/self/mountinfo`.
@Suite("Mount table")
struct MountTableTests {
    let sample = """
        27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
        42 27 7:0 / /mnt/with\\040space rw,relatime - ext4 /dev/loop0 rw
        43 27 0:39 /sub /mnt/btrfs-sub rw,relatime shared:5 master:2 - btrfs /dev/loop1 rw,subvolid=256,subvol=/sub
        44 27 7:0 /dir /bind rw - ext4 /dev/loop0 rw
        45 27 0:50 / /net rw - nfs4 server:/export rw,vers=4.2
        46 27 0:21 / /proc rw - proc proc rw
        47 27 0:51 / /odd\\377name rw - tmpfs tmpfs rw
        """

    @Test("fields, octal escapes, optional fields, bind roots")
    func parse() throws {
        let table = try MountTable(parsing: Array(sample.utf8))
        #expect(table.entries.count == 7)
        let root = table.entries[0]
        #expect(root.mountID == MountID(rawValue: 27) && root.parentID == MountID(rawValue: 1))
        #expect(root.device == DeviceNumber(major: 254, minor: 0))
        #expect(root.optionalFields == ["shared:1"])
        #expect(root.superOptions == ["rw", "discard"])
        #expect(table.entries[1].mountPoint == Array("/mnt/with space".utf8))
        let btrfs = table.entries[2]
        #expect(btrfs.root == Array("/sub".utf8))
        #expect(!btrfs.isWholeFileSystem)
        #expect(btrfs.optionalFields == ["shared:5", "master:2"])
        #expect(btrfs.superOptions.contains("subvolid=256"))
        #expect(table.entries[6].mountPoint == Array("/odd".utf8) + [0xFF] + Array("name".utf8))
        #expect(table.entry(mountID: MountID(rawValue: 44))?.rootPath == "/dir")
    }

    @Test("categories: network and pseudo mounts are never opened by default")
    func categories() throws {
        let table = try MountTable(parsing: Array(sample.utf8))
        #expect(table.entries[4].category == .network)
        #expect(table.entries[5].category == .pseudo)
        #expect(table.entries[6].category == .memory)
        #expect(!table.volumes.contains { $0.fsType == "proc" })
        let trace = AuditLog(level: .calls)
        let volume = SyscallSeam.$observer.withValue(trace) { Volume.identify(table.entries[4]) }
        #expect(trace.calls.isEmpty, "identifying an NFS mount touched nothing")
        #expect(volume.uuidSource == .sourceAndType)
        #expect(volume.key == "source:nfs4:server:/export")
        #expect(!volume.isPersistent)
    }

    @Test(
        "malformed lines fail with the line number",
        arguments: [
            "27 1 254:0 / / rw",  // no separator
            "x 1 254:0 / / rw - ext4 /dev/vda rw",  // id not a number
            "27 1 254 / / rw - ext4 /dev/vda rw",  // device not major:minor
            "27 1 254:0 / / rw -",  // nothing after the separator
        ])
    func malformed(line: String) {
        let error = #expect(throws: FileIdentityError.self) {
            try MountTable(parsing: Array(("27 1 254:0 / / rw - ext4 /dev/vda rw\n" + line).utf8))
        }
        #expect(error?.code == .malformedMountTable)
        #expect(error?.mountTableLine == 2)
        #expect(error?.cause == nil, "no call failed")
        #expect(error?.description.hasPrefix("mountinfo line 2: ") == true)
    }

    @Test("the live table has the root mount")
    func live() throws {
        let table = try MountTable.current()
        #expect(table.entries.contains { $0.mountPoint == [UInt8(ascii: "/")] })
    }
}
