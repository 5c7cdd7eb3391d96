// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Case-insensitive directories: exFAT through FUSE on a loop device (folds case), ext4 casefold
/// where the kernel has it, and plain ext4 as the case-sensitive control.
@Suite("Case folding on real volumes", .serialized, .requiresRealVolumes)
struct CaseFoldingTests {
    static let nfc = Array("caf\u{E9}".utf8)  // é precomposed: 63 61 66 C3 A9
    static let nfd: [UInt8] = Array("cafe".utf8) + [0xCC, 0x81]  // e + U+0301

    func detections(_ log: AuditLog) -> [PolicyEvent] {
        log.policyEvents.filter { if case .caseFoldingDetected = $0 { return true } else { return false } }
    }

    /// Why tmpfs cannot fold case here (Linux 6.13+ with CONFIG_UNICODE), from one probe mount;
    /// `nil` when it can.
    static let tmpfsCasefoldUnavailable: String? = {
        guard let directory = try? TreeFixture.scratch("tmpfs-casefold-probe") else { return "no scratch directory" }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let mount = try? Shell.run(["mount", "-t", "tmpfs", "-o", "size=1m,casefold=utf8", "cf", directory]) else {
            return "mount could not be run"
        }
        guard mount.status == 0 else {
            let why = mount.stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            return "mount -o casefold=utf8 failed (\(why)): the kernel lacks CONFIG_UNICODE or is older than 6.13"
        }
        _ = try? Shell.run(["umount", directory])
        return nil
    }()

    @Test("exFAT (FUSE): detected by an O_EXCL probe and cached; collisions refused; on-disk spelling reported",
          .requiresFileSystems(.exfat))
    func exfat() throws {
        try LoopVolume.withVolume(.exfat) { volume in
            let base = volume.path("cf")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            let log = AuditLog()
            let root = try Directory(opening: FilePath(base), auditLog: log)
            #expect(try root.foldsCase())
            #expect(try root.foldsCase())
            #expect(detections(log) == [.caseFoldingDetected(folds: true, method: "exclusiveProbe")])
            #expect(try FileManager.default.contentsOfDirectory(atPath: base).isEmpty)  // the probe cleaned up

            _ = try root.createFile("Readme")
            let readme = try #require(throws: FileSystemError.self) { try root.createFile("README") }
            #expect(readme.violation == .caseCollision(existing: Array("Readme".utf8), requested: Array("README".utf8)))
            #expect(readme.errno == .fileExists)
            #expect(try root.onDiskName("readme") == Array("Readme".utf8))
            #expect(try root.onDiskName("Readme") == Array("Readme".utf8))
            #expect(try root.onDiskName("nothing") == nil)

            // node-tar CVE-2021-37701: FOO/ then a symlink foo, then FOO/x.
            _ = try root.createDirectory("FOO")
            let link = try #require(throws: FileSystemError.self) { try root.createSymlink("foo", target: Array("/elsewhere".utf8)) }
            #expect(link.violation == .caseCollision(existing: Array("FOO".utf8), requested: Array("foo".utf8)))
            _ = try root.createFile("FOO/x")
            #expect(FileManager.default.fileExists(atPath: base + "/FOO/x"))

            // NFC then NFD (37712), .git then .Git and .g\u{200C}it (git CVE-2014-9390).
            _ = try root.createFile(bytes: Self.nfc)
            let nfd = try #require(throws: FileSystemError.self) { try root.createFile(bytes: Self.nfd) }
            #expect(nfd.violation == .caseCollision(existing: Self.nfc, requested: Self.nfd))
            _ = try root.createDirectory(".git")
            for spelling in [".Git", ".GIT", ".g\u{200C}it"] {
                let error = try #require(throws: FileSystemError.self) { try root.createDirectory(FilePath(spelling)) }
                #expect(error.violation == .caseCollision(existing: Array(".git".utf8), requested: Array(spelling.utf8)))
            }
            // Publishing and replacing are checked the same way.
            #expect(throws: FileSystemError.self) { try root.publish("readme", contents: [1]) }
            #expect(throws: FileSystemError.self) { try root.replace("README", contents: [1]) }
            #expect(log.rejections.count == 8)
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: base))
            #expect(names == ["Readme", "FOO", "caf\u{E9}", ".git"])
        }
    }

    @Test("ext4 without casefold: the case-sensitive control allows Readme and README, NFC and NFD")
    func caseSensitiveControl() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let base = volume.path("cs")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            let log = AuditLog()
            let root = try Directory(opening: FilePath(base), auditLog: log)
            #expect(try !root.foldsCase())
            #expect(detections(log) == [.caseFoldingDetected(folds: false, method: "flagsWithoutCasefold")])
            _ = try root.createFile("Readme")
            _ = try root.createFile("README")
            _ = try root.createFile(bytes: Self.nfc)
            _ = try root.createFile(bytes: Self.nfd)
            _ = try root.createDirectory(".git")
            _ = try root.createDirectory(".Git")
            #expect(try root.onDiskName("readme") == nil)
            #expect(log.rejections.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: base).count == 6)
        }
    }

    @Test("tmpfs casefold (Linux 6.13+, mount option casefold=utf8) is detected by its inode flag",
          .requires { tmpfsCasefoldUnavailable })
    func tmpfsCasefold() throws {
        let directory = try TreeFixture.scratch("tmpfs-casefold")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Shell.check(["mount", "-t", "tmpfs", "-o", "size=1m,casefold=utf8", "cf", directory])
        defer { _ = try? Shell.run(["umount", directory]) }
        let root = try Directory(opening: FilePath(directory))
        #expect(try root.foldsCase())
        _ = try root.createFile("Readme")
        #expect(throws: FileSystemError.self) { try root.createFile("README") }
    }

    @Test("ext4 casefold (+F directory) is detected by its inode flag",
          .requires {
              FileManager.default.fileExists(atPath: "/sys/fs/ext4/features/casefold")
                  ? nil : "this kernel has no CONFIG_UNICODE (/sys/fs/ext4/features/casefold is missing)"
          })
    func ext4Casefold() throws {
        let directory = try TreeFixture.scratch("casefold")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let image = directory + "/image"
        try Shell.check(["truncate", "-s", "64M", image])
        try Shell.check(["mkfs.ext4", "-q", "-F", "-O", "casefold", image])
        try FileManager.default.createDirectory(atPath: directory + "/mnt", withIntermediateDirectories: true)
        try Shell.check(["mount", "-o", "loop", image, directory + "/mnt"])
        defer { _ = try? Shell.run(["umount", directory + "/mnt"]) }
        try FileManager.default.createDirectory(atPath: directory + "/mnt/ci", withIntermediateDirectories: true)
        try Shell.check(["chattr", "+F", directory + "/mnt/ci"])
        let log = AuditLog()
        let root = try Directory(opening: FilePath(directory + "/mnt"), auditLog: log)
        #expect(try root.foldsCase("ci"))
        #expect(try !root.foldsCase("."))
        #expect(detections(log).contains(.caseFoldingDetected(folds: true, method: "casefoldFlag")))
        _ = try root.createFile("ci/Readme")
        let error = try #require(throws: FileSystemError.self) { try root.createFile("ci/README") }
        #expect(error.violation == .caseCollision(existing: Array("Readme".utf8), requested: Array("README".utf8)))
    }
}

/// The folding key itself, without a file system.
@Suite("Name folding keys")
struct NameFoldingTests {
    @Test("case, NFC/NFD, ignorable code points and invalid UTF-8")
    func keys() {
        #expect(NameFolding.collide(Array("Readme".utf8), Array("README".utf8)))
        #expect(NameFolding.collide(CaseFoldingTests.nfc, CaseFoldingTests.nfd))
        #expect(NameFolding.collide(Array("\u{C9}COLE".utf8), Array("e\u{301}cole".utf8)))
        #expect(NameFolding.collide(Array(".git".utf8), Array(".g\u{200C}it".utf8)))
        #expect(NameFolding.collide(Array("\u{1E9E}".utf8), Array("\u{DF}".utf8)))  // capital sharp s lower-cases to ß
        #expect(!NameFolding.collide(Array("a".utf8), Array("b".utf8)))
        #expect(!NameFolding.collide([0x61, 0xFF], [0x41, 0xFF]))  // not UTF-8: bytes only
        #expect(NameFolding.collide([0x61, 0xFF], [0x61, 0xFF]))
        // Marks in either order are one name.
        #expect(NameFolding.collide(Array("a\u{301}\u{323}".utf8), Array("a\u{323}\u{301}".utf8)))
    }

    @Test("batch collisions are found before anything is created")
    func batch() {
        let names = ["FOO", "foo", "FOO/x", ".git", ".Git", "caf\u{E9}", "cafe\u{301}", "unique"].map { Array($0.utf8) }
        let pairs = NameFolding.collisions(in: names).map { "\(String(decoding: $0.first, as: UTF8.self))|\(String(decoding: $0.second, as: UTF8.self))" }
        #expect(pairs == ["FOO|foo", ".git|.Git", "caf\u{E9}|cafe\u{301}"])
    }
}
