// SPDX-License-Identifier: Apache-2.0
// secure-probe: drives the SecureFiles layer from a separate process, for the tests that need one:
// a process-wide umask set by the caller (`sh -c 'umask 077; exec secure-probe modes'`), another
// user (setpriv), or `strace -f` watching every system call. It works in its current directory,
// opened as the root with a relative ".", so the library never needs an absolute path.
//
//   secure-probe exercise        every operation once; prints "BEGIN"/"END" markers on stderr
//   secure-probe modes           creates files and directories with several modes; prints them
//   secure-probe verify NAME     openVerified(NAME) with the strict policy; prints ok or the reason
//   secure-probe umask           prints the umask as read from /proc/self/status
//   secure-probe replace-loop NAME   replaces NAME in a loop with 64 KiB of one repeated byte, until
//                                    killed (for the kill tests: old or new, never torn, no litter)

import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

func say(_ text: String) {
    print(text)
}

func marker(_ text: String) {
    // A write(2) the strace check can find; nothing else touches stderr between the markers.
    var line = Array((text + "\n").utf8)
    _ = line.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
}

func octalText(_ value: UInt32) -> String { "0o" + String(value, radix: 8) }
/// A umask the kernel may not report (`ProcessUmask.current()` is `nil` before Linux 4.7).
func octalText(_ value: UInt32?) -> String { value.map { octalText($0) } ?? "unknown" }

func run(_ arguments: [String]) throws(FileSystemError) -> Int32 {
    guard let command = arguments.first else {
        say("usage: secure-probe exercise|modes|verify NAME|umask")
        return 2
    }
    switch command {
    case "umask":
        say("umask \(octalText(try ProcessUmask.current()))")
    case "modes":
        let root = try Directory(opening: ".")
        say("umask \(octalText(try ProcessUmask.current()))")
        for mode: UInt32 in [0o600, 0o640, 0o644, 0o666, 0o700, 0o755, 0o777, 0o400] {
            let file = try root.createFile(FilePath("file-\(String(mode, radix: 8))"), permissions: FilePermissions(rawValue: mode))
            say("file \(octalText(mode)) \(octalText(try file.status().permissions))")
        }
        for mode: UInt32 in [0o700, 0o755, 0o750, 0o777] {
            let directory = try root.createDirectory(FilePath("dirs/\(String(mode, radix: 8))/inner"), permissions: FilePermissions(rawValue: mode), withIntermediateDirectories: true)
            say("dir \(octalText(mode)) \(octalText(try directory.status().permissions))")
        }
        try root.publish("published", contents: Array("p".utf8), permissions: FilePermissions(rawValue: 0o640))
        say("publish 0o640 \(octalText(try root.status(of: "published").permissions))")
        try root.replace("replaced", contents: Array("r".utf8), options: ReplaceOptions(permissions: .exactly(FilePermissions(rawValue: 0o604))))
        say("replace 0o604 \(octalText(try root.status(of: "replaced").permissions))")
        say("umask-after \(octalText(try ProcessUmask.current()))")
    case "verify":
        guard arguments.count == 2 else { return 2 }
        let root = try Directory(opening: ".")
        do throws(FileSystemError) {
            let bytes = try root.readVerified(FilePath(arguments[1]))
            say("ok \(bytes.count)")
        } catch {
            say("rejected \(error.violation?.reason ?? "errno-\(error.errno.rawValue)")")
        }
    case "exercise":
        marker("SECURE-PROBE-BEGIN")
        let root = try Directory(opening: ".")
        let walker = try Directory(opening: ".", backend: .walker)
        _ = try root.createDirectory("tree/a/b", permissions: [.ownerReadWriteExecute], withIntermediateDirectories: true)
        _ = try root.createFile("tree/a/file", permissions: [.ownerReadWrite])
        try root.publish("tree/published", contents: Array("hello".utf8))
        try root.replace("tree/replaced", contents: Array("one".utf8))
        try root.replace("tree/replaced", contents: Array("two".utf8))
        try root.rename("tree/replaced", to: "tree/renamed", mode: .noReplace)
        try root.createSymlink("tree/link", target: Array("a/file".utf8))
        _ = try root.open("tree/link")
        _ = try walker.open("tree/link")
        _ = try walker.open("tree/a/b", options: [.pathOnly, .directory])
        _ = try root.readVerified("tree/published")
        _ = try root.foldsCase("tree")
        _ = try root.onDiskName("tree/published")
        _ = try root.status(of: "tree/link")
        try root.removeAll("tree")
        marker("SECURE-PROBE-END")
        say("exercise ok")
    case "replace-loop" where arguments.count == 2:
        let root = try Directory(opening: ".")
        var round: UInt8 = 0
        say("ready")
        while true {
            round &+= 1
            try root.replace(FilePath(arguments[1]), contents: [UInt8](repeating: round, count: 65536))
        }
    default:
        say("unknown command \(command)")
        return 2
    }
    return 0
}

do throws(FileSystemError) {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    say("error \(error)")
    exit(1)
}
