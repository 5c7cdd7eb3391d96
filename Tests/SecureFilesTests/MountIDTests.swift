// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// The typed mount ids and fsid: what they print and how they encode, and which one statx fills.
@Suite("Mount ids and fsid")
struct MountIDTests {
    @Test("ids print and encode as the bare number the kernel reports")
    func numbers() throws {
        #expect(MountID(rawValue: 27).description == "27")
        #expect(UniqueMountID(rawValue: 2_147_483_677).description == "2147483677")
        let encoded = try JSONEncoder().encode([MountID(rawValue: 27)])
        #expect(String(decoding: encoded, as: UTF8.self) == "[27]")
        #expect(try JSONDecoder().decode(UniqueMountID.self, from: Data("2147483677".utf8)).rawValue == 2_147_483_677)
    }

    @Test("an fsid prints as stat -f does: eight hex digits per word, val[0] first")
    func fsid() {
        #expect(FileSystemID(0x0a9c_0c83, 0x6a).description == "0a9c0c83:0000006a")
        #expect(FileSystemID(0, 0).isZero)
        #expect(!FileSystemID(0, 1).isZero)
    }

    @Test("statx fills one mount id: the unique one here (Linux 6.8+); the reusable one is asked separately")
    func oneOfTwo() throws {
        let status = try FileStatus(path: "/")
        #expect((status.uniqueMountID == nil) != (status.mountID == nil))
        let root = try Directory.current.open("/", options: [.pathOnly])
        defer { try? root.close() }
        #expect(try root.reusableMountID() == (try root.fileHandle()).mountID)
    }
}
