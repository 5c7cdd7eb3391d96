// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Exclusive creation, exact modes, createDirectory(withIntermediateDirectories:)/removeAll, atomic publish and replace, renameat2,
/// on real loop-mounted volumes of every kind the fixture makes (exFAT has its own suite).
@Suite("Creation on real volumes", .serialized, .requiresRealVolumes)
struct CreationTests {
    static let kinds: [FixtureFileSystem] = [.ext4, .xfs, .btrfs, .tmpfs]

    func permissions(_ path: String) -> UInt32 {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt32(info.st_mode) & 0o7777 : 0xFFFF
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    @Test(
        "exclusive create: EEXIST on a file, directory, symlink or dangling symlink; the target never appears",
        arguments: kinds, [ResolverBackend.automatic, .walker])
    func exclusive(kind: FixtureFileSystem, backend: ResolverBackend) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            try FileManager.default.createDirectory(atPath: base + "/dir", withIntermediateDirectories: true)
            try TreeFixture.makeFile(base, Array("file".utf8), contents: [1])
            _ = symlink("file", base + "/link")
            _ = symlink("../outside-target", base + "/dangling")
            _ = symlink("nowhere", base + "/dangling-inside")
            let log = AuditLog()
            let root = try Directory(opening: FilePath(base), auditLog: log, backend: backend)
            #expect(log.pathBasedEffects().count == 1)  // opening the (trusted) root itself
            let fs = try root.descriptor.fileSystemStatistics()  // really the file system asked for
            #expect([FixtureFileSystem.ext4: fs.isExt4, .xfs: fs.isXFS, .btrfs: fs.isBtrfs, .tmpfs: fs.isTmpfs][kind] == true)
            log.clear()
            for name in ["file", "dir", "link", "dangling", "dangling-inside"] {
                let error = try #require(throws: FileSystemError.self) { try root.createFile(FilePath(name)) }
                #expect(error.errno == .fileExists, "\(name)")
            }
            #expect(!exists(volume.path("outside-target")))
            #expect(!exists(base + "/nowhere"))
            for name in ["x/", "x/.", "..", "/", "", "dir/..", "dir/.", "x//"] {
                let error = try #require(throws: FileSystemError.self) { try root.createFile(bytes: Array(name.utf8)) }
                #expect(error.violation == .invalidName(Array(name.utf8)), "\(name)")
            }
            // The returned descriptor is the new entry.
            let created = try root.createFile("dir/new", permissions: [.ownerReadWrite, .groupRead])
            let mine = try created.status()
            let entry = try FileStatus(path: FilePath(base + "/dir/new"), followSymlinks: false)
            #expect(mine.inode == entry.inode && mine.device == entry.device)
            #expect(entry.permissions == 0o640)
            #expect(log.createdObjects.count == 1 && log.everyCreatedObject(hasPermissions: 0o640))
            #expect(log.pathBasedEffects().isEmpty, "\(log.pathBasedEffects())")
            #expect(log.effectsThatMayFollowSymlinks.isEmpty, "\(log.effectsThatMayFollowSymlinks)")
            #expect(!log.contains(syscall: "umask"))
            // Modes outside 0o777 are refused before anything is created.
            let setuid = try #require(throws: FileSystemError.self) {
                try root.createFile("suid", permissions: FilePermissions(rawValue: 0o4755))
            }
            #expect(setuid.violation == .modeOutOfRange(0o4755))
            #expect(!exists(base + "/suid"))
        }
    }

    @Test("the final mode is exactly the one asked for under umask 000, 022 and 077, and the umask is never changed")
    func modesUnderUmask() throws {
        let probe = try #require(ProbeTool.path, "secure-probe is built with the tests")
        for umaskValue in ["000", "022", "077"] {
            let scratch = try TreeFixture.scratch("umask")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let result = try Shell.run(["sh", "-c", "cd '\(scratch)' && umask \(umaskValue) && exec '\(probe)' modes"])
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.first == "umask 0o\(Int(umaskValue, radix: 8).map { String($0, radix: 8) } ?? "")")
            #expect(lines.last == lines.first.map { "umask-after" + $0.dropFirst(5) })
            var checked = 0
            for line in lines where !line.hasPrefix("umask") {
                let fields = line.split(separator: " ")
                #expect(fields.count == 3 && fields[1] == fields[2], "umask \(umaskValue): \(line)")
                checked += 1
            }
            #expect(checked == 14)
            // And on disk, by path, from outside the library.
            #expect(permissions(scratch + "/file-666") == 0o666)
            #expect(permissions(scratch + "/file-400") == 0o400)
            #expect(permissions(scratch + "/dirs/777/inner") == 0o777)
        }
    }

    @Test("as uid 65534 (setpriv) the modes are exact too, and the files are owned by that user", .requiresUnprivilegedUser)
    func modesUnprivileged() throws {
        let probe = try #require(ProbeTool.path)
        try LoopVolume.withVolume(.ext4) { volume in
            let base = volume.path("nobody")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            #expect(chown(base, UInt32(Unprivileged.uid), UInt32(Unprivileged.uid)) == 0)
            let result = try Unprivileged.run(["sh", "-c", "cd '\(base)' && umask 027 && exec '\(probe)' modes"])
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("umask") }
            #expect(lines.count == 14)
            for line in lines {
                let fields = line.split(separator: " ")
                #expect(fields.count == 3 && fields[1] == fields[2], "\(line)")
            }
            var info = stat()
            #expect(lstat(base + "/file-644", &info) == 0 && info.st_uid == UInt32(Unprivileged.uid))
            #expect(UInt32(info.st_mode) & 0o7777 == 0o644)
            // And it cannot create where it may not write: a typed error, not a crash.
            let denied = try Unprivileged.run(["sh", "-c", "cd '\(volume.path(""))' && exec '\(probe)' modes"])
            #expect(denied.status == 1 && denied.stdout.contains("Permission denied"), "\(denied.stdout)")
        }
    }

    @Test("umask is read from /proc/self/status without changing it")
    func readsUmask() throws {
        let current = umask(0o022)
        umask(current)
        #expect(try ProcessUmask.current() == UInt32(current))
    }

    @Test("createDirectory(withIntermediateDirectories:): exact modes, setgid inherited, refusals as libpathrs documents", arguments: kinds, [ResolverBackend.automatic, .walker])
    func createDirectoryWithIntermediates(kind: FixtureFileSystem, backend: ResolverBackend) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            try TreeFixture.build("basic-tree.txt", under: base)
            let root = try Directory(opening: FilePath(base), backend: backend)
            let made = try root.createDirectory("new/deep/er", permissions: FilePermissions(rawValue: 0o750), withIntermediateDirectories: true)
            #expect(try made.status().permissions == 0o750)
            #expect(permissions(base + "/new") == 0o750 && permissions(base + "/new/deep") == 0o750)
            _ = try root.createDirectory("new/deep/er", withIntermediateDirectories: true)  // existing: fine
            _ = try root.createDirectory("b/c/../c/d/../new2", withIntermediateDirectories: true)
            #expect(exists(base + "/b/c/new2"))
            _ = try root.createDirectory("link1/target_rel/made-through-link", withIntermediateDirectories: true)  // symlinks inside the root are followed
            #expect(exists(base + "/target/made-through-link"))
            let cases: [(String, Errno)] = [
                ("b-file/subdir", .notDirectory), ("a-fake1", .notDirectory), ("a/x/y/../z", .noSuchFileOrDirectory),
                ("loop/link/foo", .improperLink), ("escape-link1/x", .improperLink), ("../x", .improperLink),
            ]
            for (path, errno) in cases {
                let error = try #require(throws: FileSystemError.self) { try root.createDirectory(FilePath(path), withIntermediateDirectories: true) }
                #expect(error.errno == errno, "\(path): \(error)")
            }
            #expect(!exists(base + "/a/x"))
            let inRoot = try Directory(opening: FilePath(base), policy: .inRoot, backend: backend)
            let loop = try #require(throws: FileSystemError.self) { try inRoot.createDirectory("loop/link/foo", withIntermediateDirectories: true) }
            #expect(loop.errno == .tooManySymbolicLinkLevels)
            _ = try inRoot.createDirectory("escape-link1/clamped", withIntermediateDirectories: true)
            #expect(exists(base + "/target/clamped"))
            for mode: UInt32 in [0o4777, 0o2777, 0o1777, 0o12340777] {
                let error = try #require(throws: FileSystemError.self) {
                    try root.createDirectory("never", permissions: FilePermissions(rawValue: mode), withIntermediateDirectories: true)
                }
                #expect(error.violation == .modeOutOfRange(mode))
            }
            #expect(!exists(base + "/never"))
            // A setgid parent passes its group and S_ISGID on.
            try FileManager.default.createDirectory(atPath: base + "/sgid", withIntermediateDirectories: true)
            #expect(chown(base + "/sgid", 0, 12345) == 0 && chmod(base + "/sgid", 0o2775) == 0)
            let child = try root.createDirectory("sgid/child", permissions: FilePermissions(rawValue: 0o750), withIntermediateDirectories: true)
            let status = try child.status()
            #expect(status.gid == 12345)
            #expect(status.permissions == 0o2750)
        }
    }

    @Test("removeAll removes trees, never follows symlinks out, tolerates missing paths, refuses . and ..", arguments: kinds)
    func removeAll(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            let outside = volume.path("outside")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            try TreeFixture.makeFile(outside, Array("keep".utf8), contents: [1])
            var deep = "deep"
            for level in 0..<26 { deep += "/l\(level)" }
            try TreeFixture.makeDirectories(base, Array(deep.utf8))
            for sibling in 0..<80 { try TreeFixture.makeFile(base, Array("deep/l0/f\(sibling)".utf8), contents: [2]) }
            _ = symlink(outside, base + "/deep/l0/l1/abs-out")
            _ = symlink("../../../../outside", base + "/deep/l0/l1/rel-out")
            _ = mkfifo(base + "/deep/fifo", 0o600)
            let root = try Directory(opening: FilePath(base))
            try root.removeAll("deep")
            #expect(!exists(base + "/deep"))
            #expect(exists(outside + "/keep"))
            try root.removeAll("deep")  // missing: fine
            try root.removeAll("not/even/a/parent")
            for path in [".", "..", "deep/..", "x/.", "x/", ""] {
                let error = try #require(throws: FileSystemError.self) { try root.removeAll(bytes: Array(path.utf8)) }
                #expect(error.violation == .invalidName(Array(path.utf8)), "\(path)")
            }
            _ = symlink(outside, base + "/link-out")
            try root.removeAll("link-out")
            #expect(!exists(base + "/link-out") && exists(outside + "/keep"))
        }
    }

    @Test("atomic publish: O_TMPFILE+linkat, never replaces, falls back to a random name when O_TMPFILE is refused", arguments: kinds)
    func publish(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            let log = AuditLog()
            let root = try Directory(opening: FilePath(base), auditLog: log)
            try root.publish("one", contents: Array("first".utf8), permissions: FilePermissions(rawValue: 0o640))
            #expect(try String(contentsOfFile: base + "/one", encoding: .utf8) == "first")
            #expect(permissions(base + "/one") == 0o640)
            #expect(log.contains(syscall: "linkat"))
            let clash = try #require(throws: FileSystemError.self) { try root.publish("one", contents: Array("second".utf8)) }
            #expect(clash.errno == .fileExists)
            #expect(try String(contentsOfFile: base + "/one", encoding: .utf8) == "first")
            _ = symlink("../escaped", base + "/dangling")
            #expect(throws: FileSystemError.self) { try root.publish("dangling", contents: [1]) }
            #expect(!exists(volume.path("escaped")))

            log.inject(.temporaryFileUnsupported)
            try root.publish("two", contents: Array("fallback".utf8), permissions: FilePermissions(rawValue: 0o604))
            #expect(try String(contentsOfFile: base + "/two", encoding: .utf8) == "fallback")
            #expect(permissions(base + "/two") == 0o604)
            #expect(log.policyEvents.contains(.temporaryNameFallback(errno: .notSupported)))
            let again = try #require(throws: FileSystemError.self) { try root.publish("two", contents: [9]) }
            #expect(again.errno == .fileExists)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            // No /proc and no CAP_DAC_READ_SEARCH: linking the unnamed file fails, a named temporary is used.
            let noProc = AuditLog(faults: [SyscallFault(call: "linkat", errno: .noSuchFileOrDirectory, times: 2)])
            try Directory(opening: FilePath(base), auditLog: noProc).publish("four", contents: Array("no proc".utf8))
            #expect(try String(contentsOfFile: base + "/four", encoding: .utf8) == "no proc")
            #expect(noProc.effects(named: "linkat").filter { $0.outcome == .injected(.noSuchFileOrDirectory) }.count == 2)
            #expect(noProc.policyEvents.contains(.temporaryNameFallback(errno: .noSuchFileOrDirectory)))
            // Any errno from any call: a failing fsync leaves nothing at the name.
            log.inject(SyscallFault(call: "fsync", errno: .ioError, times: 1))
            let failed = try #require(throws: FileSystemError.self) { try root.publish("three", contents: [3]) }
            #expect(failed.errno == .ioError && failed.syscall == "fsync")
            #expect(!exists(base + "/three"))
            log.inject(SyscallFault(call: "write", errno: .noSpace, times: 1))
            #expect(throws: FileSystemError.self) { try root.replace("five", contents: [5]) }
            #expect(!exists(base + "/five"))
            let debris = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.contains(".tmp-") }
            #expect(debris.isEmpty, "a failed publish or replace leaves its temporary behind: \(debris)")
        }
    }

    @Test("atomic replace: refuses a symlink or directory by default, replaces a symlink (never following it) when asked, exact mode, old or new only", arguments: kinds)
    func replace(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            try FileManager.default.createDirectory(atPath: base + "/adir", withIntermediateDirectories: true)
            try TreeFixture.makeFile(volume.path("outside"), Array("secret".utf8), contents: Array("outside".utf8))
            _ = symlink(volume.path("outside/secret"), base + "/config")
            let log = AuditLog()
            let root = try Directory(opening: FilePath(base), auditLog: log)
            // The default refuses anything but a regular file, and leaves it as it was.
            let refused = try #require(throws: FileSystemError.self) { try root.replace("config", contents: Array("v0".utf8)) }
            #expect(refused.violation == .notRegular(.symlink))
            let directory = try #require(throws: FileSystemError.self) { try root.replace("adir", contents: [1]) }
            #expect(directory.violation == .notRegular(.directory))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: base + "/config") == volume.path("outside/secret"))
            // Allowed: the link is replaced, never followed.
            var options = ReplaceOptions(permissions: .exactly(FilePermissions(rawValue: 0o600)), replacesOnlyRegularFiles: false)
            let first = try root.replace("config", contents: Array("v1".utf8), options: options)
            #expect(first.replaced?.kind == .symlink)
            #expect(try String(contentsOfFile: volume.path("outside/secret"), encoding: .utf8) == "outside")
            #expect(try String(contentsOfFile: base + "/config", encoding: .utf8) == "v1")
            options.permissions = .exactly(FilePermissions(rawValue: 0o644))
            let second = try root.replace("config", contents: Array("v2".utf8), options: options)
            #expect(second.replaced == first.written)
            #expect(try String(contentsOfFile: base + "/config", encoding: .utf8) == "v2")
            #expect(permissions(base + "/config") == 0o644)
            #expect(log.effects(named: "fsync").count >= 4)  // file and directory, twice
            #expect(log.effects(named: "renameat2").allSatisfy { $0.call.flags == 0 })
            // Keep the existing mode; the fallback applies only to a new file.
            _ = chmod(base + "/config", 0o640)
            try root.replace("config", contents: Array("v3".utf8), options: ReplaceOptions(permissions: .keepExisting(otherwise: [.ownerReadWrite])))
            #expect(permissions(base + "/config") == 0o640)
            try root.replace("fresh", contents: [1], options: ReplaceOptions(permissions: .keepExisting(otherwise: FilePermissions(rawValue: 0o604))))
            #expect(permissions(base + "/fresh") == 0o604)
            // Must exist: nothing is created.
            let missing = try #require(throws: FileSystemError.self) {
                try root.replace("absent", contents: [1], options: ReplaceOptions(mustExist: true))
            }
            #expect(missing.errno == .noSuchFileOrDirectory)
            #expect(!exists(base + "/absent"))
            // Extended attributes are on the file before it has its name.
            let attribute = ExtendedAttribute(name: "user.swift-bookmarks.test", value: Array("value".utf8))
            let outcome = try root.replace(
                "tagged", contents: [7], options: ReplaceOptions(extendedAttributes: [attribute], skipsUnsupportedAttributes: true))
            if outcome.unsupportedAttributes.isEmpty {
                let tagged = try root.open("tagged")
                #expect(try tagged.extendedAttribute(attribute.name) == attribute.value)
            } else {
                #expect(outcome.unsupportedAttributes == [attribute.name], "only user xattrs may be refused, on \(kind)")
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    @Test("atomic replace written a piece at a time: the pieces in order, the mode kept; a producer that throws leaves the old file and no temporary", arguments: kinds)
    func replaceWriting(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            try TreeFixture.makeFile(base, Array("library".utf8), contents: Array("old".utf8))
            _ = chmod(base + "/library", 0o640)
            let root = try Directory(opening: FilePath(base))
            let keep = ReplaceOptions(permissions: .keepExisting(otherwise: [.ownerReadWrite]), mustExist: true)
            // A megabyte in 64 KiB pieces, each filled with its own number.
            let outcome = try root.replace("library", options: keep) { writer throws(FileSystemError) in
                for piece in 0..<16 { try writer.write([UInt8](repeating: UInt8(piece), count: 65_536)) }
            }
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: base + "/library")))
            #expect(written.count == 16 * 65_536)
            #expect((0..<16).allSatisfy { piece in written[piece * 65_536..<(piece + 1) * 65_536].allSatisfy { $0 == UInt8(piece) } })
            #expect(permissions(base + "/library") == 0o640)
            #expect(outcome.replaced != nil)
            // A producer that fails half way: the old file as it was, nothing left behind.
            let failure = try #require(throws: FileSystemError.self) {
                try root.replace("library", options: keep) { writer throws(FileSystemError) in
                    try writer.write(Array("partial".utf8))
                    throw FileSystemError(syscall: "pread", errno: .ioError, path: "source")
                }
            }
            #expect(failure.syscall == "pread")
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: base + "/library"))) == written)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: base).filter { $0.contains(".tmp-") }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    @Test("atomic replace by root keeps the owner and group of a file whose owner owns the folder; in another's folder, and for a new name, the file is root's", arguments: kinds)
    func replaceKeepsOwner(kind: FixtureFileSystem) throws {
        try #require(geteuid() == 0, "root gives a file to another user; this suite runs as root")
        try LoopVolume.withVolume(kind) { volume in
            let home = volume.path("home")
            try TreeFixture.makeFile(home, Array("theirs".utf8), contents: Array("old".utf8))
            #expect(chown(home, 65534, 65534) == 0 && chown(home + "/theirs", 65534, 100) == 0)
            let keep = ReplaceOptions(permissions: .keepExisting(otherwise: [.ownerReadWrite]))
            let root = try Directory(opening: FilePath(home))
            try root.replace("theirs", contents: Array("new".utf8), options: keep)
            try root.replace("theirs", options: keep) { writer throws(FileSystemError) in try writer.write(Array("newer".utf8)) }
            try root.replace("mine", contents: [1], options: keep)
            var info = stat()
            #expect(lstat(home + "/theirs", &info) == 0)
            #expect(info.st_uid == 65534 && info.st_gid == 100, "owner \(info.st_uid):\(info.st_gid)")
            #expect(try String(contentsOfFile: home + "/theirs", encoding: .utf8) == "newer")
            #expect(lstat(home + "/mine", &info) == 0 && info.st_uid == 0)
            // A file of uid 65534 in a folder someone else owns (here root; in an attack, the
            // attacker, who swapped it in): the new file is not given to 65534.
            let shared = volume.path("shared")
            try TreeFixture.makeFile(shared, Array("planted".utf8), contents: Array("old".utf8))
            #expect(chown(shared + "/planted", 65534, 65534) == 0)
            try Directory(opening: FilePath(shared)).replace("planted", contents: [2], options: keep)
            #expect(lstat(shared + "/planted", &info) == 0 && info.st_uid == 0 && info.st_gid == 0)
        }
    }

    @Test("atomic replace: the directory is synced after the rename by default, and not with syncsDirectory: false (the file itself always before it)")
    func replaceWithoutDirectorySync() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let base = volume.path("root")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
            for syncs in [true, false] {
                let log = AuditLog(level: .calls)
                let root = try Directory(opening: FilePath(base), auditLog: log)
                let name = syncs ? "synced" : "unsynced"
                try root.replace(FilePath(name), contents: Array(name.utf8), options: ReplaceOptions(syncsDirectory: syncs))
                #expect(try String(contentsOfFile: base + "/" + name, encoding: .utf8) == name)
                let calls = log.calls.map(\.name)
                let rename = try #require(calls.lastIndex(of: "renameat2"))
                #expect(calls[..<rename].contains("fsync"), "the file is synced before it is renamed into place: \(calls)")
                #expect(calls[rename...].contains("fsync") == syncs, "syncsDirectory \(syncs): \(calls)")
            }
        }
    }

    @Test("renameat2: no-replace onto a dangling symlink is EEXIST, exchange swaps, exchange with a missing peer is ENOENT", arguments: kinds)
    func rename(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let base = volume.path("root")
            try TreeFixture.makeFile(base, Array("a".utf8), contents: Array("A".utf8))
            try TreeFixture.makeFile(base, Array("b".utf8), contents: Array("B".utf8))
            _ = symlink("nowhere", base + "/dangling")
            let root = try Directory(opening: FilePath(base))
            let noReplace = try #require(throws: FileSystemError.self) { try root.rename("a", to: "dangling", mode: .noReplace) }
            #expect(noReplace.errno == .fileExists)
            try root.rename("a", to: "b", mode: .exchange)
            #expect(try String(contentsOfFile: base + "/a", encoding: .utf8) == "B")
            #expect(try String(contentsOfFile: base + "/b", encoding: .utf8) == "A")
            let missing = try #require(throws: FileSystemError.self) { try root.rename("a", to: "missing", mode: .exchange) }
            #expect(missing.errno == .noSuchFileOrDirectory)
            try root.rename("a", to: "c", mode: .noReplace)
            #expect(exists(base + "/c") && !exists(base + "/a"))
            // remove: one file, symlink or empty directory, never what a symlink points to.
            try root.remove("dangling")
            try root.remove("c")
            _ = try root.createDirectory("empty")
            try root.remove("empty")
            #expect(!exists(base + "/dangling") && !exists(base + "/c") && !exists(base + "/empty"))
            _ = try root.createDirectory("full/x", withIntermediateDirectories: true)
            let notEmpty = try #require(throws: FileSystemError.self) { try root.remove("full") }
            #expect(notEmpty.errno == .directoryNotEmpty)
            // A subdirectory is a root of its own: its parent is outside it.
            let sub = try root.subdirectory("full")
            _ = try sub.open("x", options: [.pathOnly, .directory])
            let escape = try #require(throws: FileSystemError.self) { try sub.open("../b") }
            #expect(escape.violation == .escape)
            #expect(try root.subdirectory("full", policy: .inRoot).open("../x", options: .pathOnly).status().kind == .directory)
        }
    }

    @Test("a root follows its directory when the directory is renamed", arguments: [FixtureFileSystem.ext4])
    func rootSurvivesRename(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            try TreeFixture.makeFile(volume.path("before"), Array("f".utf8), contents: Array("x".utf8))
            let root = try Directory(opening: FilePath(volume.path("before")))
            #expect(Foundation.rename(volume.path("before"), volume.path("after")) == 0)
            #expect(try root.readVerified("f", verification: .regularFileOnly) == Array("x".utf8))
            _ = try root.createFile("g")
            #expect(exists(volume.path("after/g")) && !exists(volume.path("before")))
        }
    }
}

/// The `secure-probe` executable built next to the tests.
enum ProbeTool {
    static let path: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        let candidate = directory.appendingPathComponent("secure-probe").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()
}
