// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Every case of `Data/resolve-cases.txt` over the tree of `Data/basic-tree.txt`, on a
/// loop-mounted ext4 volume, in every mode and with every open flavour: the library (kernel
/// backend), the library's component walker (chosen, and forced by injecting ENOSYS and EPERM
/// into openat2) and the kernel's own openat2 must agree case by case.
@Suite("Resolution against the kernel oracle", .serialized, .requiresRealVolumes)
struct ResolutionOracleTests {
    static let policies: [ResolutionPolicy] = [
        .beneath, .inRoot, ResolutionPolicy.beneath.noSymlinks, ResolutionPolicy.inRoot.noSymlinks,
        ResolutionPolicy.beneath.noMountCrossing, ResolutionPolicy.inRoot.noMountCrossing,
    ]
    static let flavours: [(String, Int32)] = [
        ("O_PATH", cls_o_path()), ("O_PATH|O_NOFOLLOW", cls_o_path() | O_NOFOLLOW),
        ("O_RDONLY|O_NONBLOCK", O_RDONLY | O_NONBLOCK), ("O_PATH|O_DIRECTORY", cls_o_path() | O_DIRECTORY),
        ("O_RDONLY|O_NOFOLLOW|O_NONBLOCK", O_RDONLY | O_NOFOLLOW | O_NONBLOCK),
    ]

    enum Backend: String, CaseIterable {
        case kernel, walker, forcedENOSYS, forcedEPERM
    }

    static func cases() throws -> [[UInt8]] {
        var cases = try TreeFixture.lines("resolve-cases.txt").map { $0 == "<empty>" ? [] : TreeFixture.bytes($0) }
        cases.append(Array(repeating: UInt8(ascii: "n"), count: 300))  // ENAMETOOLONG
        cases.append(Array("a/".utf8) + Array(repeating: UInt8(ascii: "n"), count: 256))
        return cases
    }

    func compare(root rootPath: String, cases: [[UInt8]], policies: [ResolutionPolicy]) throws -> (compared: Int, mismatches: [String]) {
        let kernelRoot = open(rootPath, O_PATH_DIRECTORY())
        #expect(kernelRoot >= 0)
        defer { close(kernelRoot) }
        var mismatches: [String] = []
        var compared = 0
        for backend in Backend.allCases {
            let log: AuditLog? =
                switch backend {
                case .forcedENOSYS: AuditLog(faults: [.openat2Unavailable(.noFunction)])
                case .forcedEPERM: AuditLog(faults: [.openat2Unavailable(.notPermitted)])
                default: nil
                }
            let root = try Directory(
                opening: FilePath(rootPath), auditLog: log, backend: backend == .walker ? .walker : .automatic)
            for policy in policies {
                for (flavour, flags) in Self.flavours {
                    for path in cases {
                        let expected = TreeFixture.kernel(kernelRoot, path, flags: flags, resolve: TreeFixture.resolveBits(policy))
                        let actual = TreeFixture.library(root, path, flags: flags, policy: policy)
                        compared += 1
                        if expected != actual {
                            mismatches.append(
                                "\(backend) \(policy) \(flavour) '\(PathBytes(path).escaped)': kernel \(expected), library \(actual)")
                        }
                    }
                }
            }
            if let log, backend != .kernel {
                // The fallback really was used, and openat2 was tried once, then remembered.
                #expect(log.policyEvents.contains { if case .fellBack = $0 { return true } else { return false } })
                #expect(log.effects(named: "openat2").count == 1)
            }
        }
        return (compared, mismatches)
    }

    @Test("the basic tree: every case, mode and open flavour agrees with openat2, for both resolvers")
    func basicTree() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let root = volume.path("root")
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try TreeFixture.build("basic-tree.txt", under: root)
            // Something outside the root for the escape links to find.
            try FileManager.default.createDirectory(atPath: volume.path("target"), withIntermediateDirectories: true)
            let (compared, mismatches) = try compare(root: root, cases: Self.cases(), policies: Self.policies)
            print("oracle: \(compared) comparisons on ext4, \(mismatches.count) mismatches")
            #expect(mismatches.isEmpty, "\(mismatches.prefix(40).joined(separator: "\n"))")
            #expect(compared > 4000)

            // The comparison is not vacuous: the kernel gives many different answers here, and a
            // few of them are checked by hand against what the modes promise.
            let kernelRoot = open(root, O_PATH_DIRECTORY())
            defer { close(kernelRoot) }
            let distinct = Set(try Self.cases().map {
                TreeFixture.kernel(kernelRoot, $0, flags: cls_o_path(), resolve: TreeFixture.resolveBits(.beneath))
            })
            #expect(distinct.count > 10)
            let inside = TreeFixture.kernel(kernelRoot, Array("target".utf8), flags: cls_o_path(), resolve: 0)
            let rootItself = TreeFixture.kernel(kernelRoot, Array(".".utf8), flags: cls_o_path(), resolve: 0)
            for backend in [ResolverBackend.automatic, .walker] {
                let beneath = try Directory(opening: FilePath(root), backend: backend)
                let inRoot = try Directory(opening: FilePath(root), policy: .inRoot, backend: backend)
                for path in ["root-link1", "escape-link1", "/a", "..", "../"] {
                    let error = try #require(throws: FileSystemError.self) { try beneath.open(FilePath(path), options: .pathOnly) }
                    #expect(error.errno == .improperLink && error.violation == .escape, "\(backend) \(path)")
                }
                #expect(TreeFixture.library(inRoot, Array("escape-link1".utf8), flags: cls_o_path(), policy: .inRoot) == inside)
                #expect(TreeFixture.library(inRoot, Array("link2/link1_abs/../target".utf8), flags: cls_o_path(), policy: .inRoot) == inside)
                #expect(TreeFixture.library(inRoot, Array("/../../../../../..".utf8), flags: cls_o_path(), policy: .inRoot) == rootItself)
                #expect(TreeFixture.library(inRoot, Array("loop/link".utf8), flags: cls_o_path(), policy: .inRoot) == .failed(ELOOP))
                #expect(TreeFixture.library(beneath, Array("b/c/file/".utf8), flags: cls_o_path(), policy: .beneath) == .failed(ENOTDIR))
                #expect(TreeFixture.library(beneath, Array("a-fake1".utf8), flags: cls_o_path(), policy: .beneath) == .failed(ENOENT))
                #expect(TreeFixture.library(beneath, Array("dangling-file/a/b".utf8), flags: cls_o_path(), policy: .beneath) == .failed(ENOTDIR))
                #expect(TreeFixture.library(beneath, Array("link3/target_rel".utf8), flags: cls_o_path(), policy: ResolutionPolicy.beneath.noSymlinks) == .failed(ELOOP))
                #expect(TreeFixture.library(beneath, Array("go-dotdot/../target".utf8), flags: cls_o_path(), policy: .beneath) == .failed(ENOENT))
            }
        }
    }

    @Test("a mount inside the root: no-mount-crossing refuses it (EXDEV), like the kernel")
    func mountCrossing() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let root = volume.path("root")
            try FileManager.default.createDirectory(atPath: root + "/mnt", withIntermediateDirectories: true)
            try Shell.check(["mount", "-t", "tmpfs", "-o", "size=1m", "inner", root + "/mnt"])
            defer { _ = try? Shell.run(["umount", "-l", root + "/mnt"]) }
            try TreeFixture.makeFile(root + "/mnt", Array("file".utf8), contents: [1])
            _ = symlink("mnt/file", root + "/to-mnt")
            // A nosymfollow mount: the kernel refuses to follow any symlink stored on it.
            try FileManager.default.createDirectory(atPath: root + "/nsf", withIntermediateDirectories: true)
            try Shell.check(["mount", "-t", "tmpfs", "-o", "size=1m,nosymfollow", "nsf", root + "/nsf"])
            defer { _ = try? Shell.run(["umount", "-l", root + "/nsf"]) }
            try TreeFixture.makeFile(root + "/nsf", Array("file".utf8), contents: [1])
            _ = symlink("file", root + "/nsf/link")
            _ = symlink("nsf/file", root + "/to-nsf")
            let cases = [
                "mnt", "mnt/file", "mnt/..", "to-mnt", "mnt/../mnt", "nsf/link", "nsf/file", "to-nsf", "nsf/link/..",
            ].map { Array($0.utf8) }
            let (compared, mismatches) = try compare(root: root, cases: cases, policies: Self.policies)
            #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
            #expect(compared == cases.count * Self.policies.count * Self.flavours.count * Backend.allCases.count)
            let directory = try Directory(opening: FilePath(root), policy: ResolutionPolicy.beneath.noMountCrossing)
            let error = try #require(throws: FileSystemError.self) { try directory.open("mnt/file") }
            #expect(error.errno == .improperLink)
            for backend in [ResolverBackend.automatic, .walker] {
                let plain = try Directory(opening: FilePath(root), backend: backend)
                let refused = try #require(throws: FileSystemError.self) { try plain.open("nsf/link") }
                #expect(refused.errno == .tooManySymbolicLinkLevels, "\(backend)")
                _ = try plain.open("to-nsf")
            }
        }
    }

    @Test("magic links through a root at /proc are refused (ELOOP) by both resolvers; plain /proc links work")
    func magicLinks() throws {
        let cases = [
            "self", "self/exe", "self/root/etc/passwd", "self/fd/0", "self/cwd", "self/sched", "thread-self/status",
            "self/status", "mounts", "self/ns/net", "self/root", "self/fd",
        ].map { Array($0.utf8) }
        let (compared, mismatches) = try compare(root: "/proc", cases: cases, policies: [.beneath, .inRoot])
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(compared > 0)
        for backend in [ResolverBackend.automatic, .walker] {
            let proc = try Directory(opening: "/proc", backend: backend)
            let error = try #require(throws: FileSystemError.self) { try proc.open("self/exe") }
            #expect(error.errno == .tooManySymbolicLinkLevels)
            _ = try proc.open("self/status")
        }
    }

    @Test("a NUL byte fails before any system call")
    func nulByte() throws {
        let log = AuditLog()
        let root = try Directory(opening: "/proc", auditLog: log)
        log.clear()
        let error = try #require(throws: FileSystemError.self) { try root.open(bytes: Array("self\u{0}/status".utf8)) }
        #expect(error.errno == .invalidArgument)
        #expect(log.effects.isEmpty)
    }
}

func O_PATH_DIRECTORY() -> Int32 { cls_o_path() | O_DIRECTORY | O_CLOEXEC }
