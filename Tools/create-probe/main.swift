// SPDX-License-Identifier: Apache-2.0
// create-probe: makes bookmarks from a separate, single-threaded process, for the tests of the
// ancestor cache that need one: another user (setpriv), or a fork (a child of a multi-threaded
// test runner may deadlock on a lock another thread held at the fork; this process has one thread).
// Each creation prints one line: `ROLE PATH ID,ID,... watches=N queue=Q` (the per-component file
// IDs of key 0x1005; how many directories the creation tried to watch, 0 on a cache hit and on a
// first meeting; and how many inotify calls it made of any kind, 0 when it never touched inotify).
//
//   create-probe ids PATH...   bookmarks each path in turn, in one process (the later ones hit
//                              the cache when they share directories)
//   create-probe fork DIR      with DIR/a/b/doc.txt: bookmarks it twice (the second watches its
//                              directories, so the parent has an inotify queue), replaces
//                              DIR/a by a new directory tree, forks; the child bookmarks it, exits;
//                              then the parent bookmarks it again. Both must see the new tree,
//                              and the child prints `child-queue-calls N`: how many inotify and
//                              poll calls it made (it must make none: the queue is the parent's).
//   create-probe mounts DIR    (root) reads the shared mount table, forks; the parent mounts a
//                              tmpfs at DIR, then the child reads the shared table, then the
//                              parent again. Prints `child-sees yes|no` and `parent-sees yes|no`:
//                              whether each saw the mount. A child that polled the inherited
//                              mountinfo descriptor would take the parent's notification.
//   create-probe links DIR     with DIR/one and DIR/two: reads the link of a descriptor of one
//                              (so the process keeps its /proc/self/fd open), forks; the child
//                              closes that descriptor, opens two under the same number and
//                              reads its link. Prints `child-link PATH`, `same-number yes|no`
//                              and then `parent-link PATH`: a child that read through the
//                              parent's /proc/self/fd would print one.

import BookmarkKit
import FileIdentity
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

func line(_ role: String, _ path: String) throws {
    let trace = AuditLog(level: .calls)
    let bookmark = try SyscallSeam.$observer.withValue(trace) { () throws -> Bookmark in
        try Bookmark.create(for: FilePath(path))
    }
    let ids = bookmark.record.fileIDs?.map { $0.map(String.init) ?? "-" }.joined(separator: ",") ?? ""
    let watches = trace.calls.filter { $0.name == "inotify_add_watch" }.count
    let queue = trace.calls.filter { $0.name.hasPrefix("inotify") }.count
    // write(2), not print: the child leaves with _exit, which would drop buffered output.
    var text = Array("\(role) \(path) \(ids) watches=\(watches) queue=\(queue)\n".utf8)
    _ = text.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress, $0.count) }
}

func check(_ ok: Bool, _ what: String) {
    if !ok {
        var text = Array("create-probe: \(what) failed: errno \(errno)\n".utf8)
        _ = text.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
        exit(1)
    }
}

func forkScenario(_ directory: String) throws {
    let target = directory + "/a/b/doc.txt"
    // Twice: a first meeting watches nothing; the second makes the queue the child must not read.
    try line("before", target)
    try line("before", target)
    // Replace the chain: the old `a` moves away, a new `a/b/doc.txt` takes its place.
    check(rename(directory + "/a", directory + "/a.old") == 0, "rename")
    check(mkdir(directory + "/a", 0o755) == 0 && mkdir(directory + "/a/b", 0o755) == 0, "mkdir")
    let fd = open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
    check(fd >= 0, "create")
    close(fd)
    let child = fork()
    check(child >= 0, "fork")
    if child == 0 {
        let trace = AuditLog(level: .calls)
        do {
            try SyscallSeam.$observer.withValue(trace) { try line("child", target) }
        } catch { _exit(2) }
        let queueCalls = trace.calls.filter { $0.name.hasPrefix("inotify") || $0.name == "epoll_wait" }.count
        var text = Array("child-queue-calls \(queueCalls)\n".utf8)
        _ = text.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress, $0.count) }
        _exit(0)
    }
    var status: CInt = 0
    check(waitpid(child, &status, 0) == child, "waitpid")
    check(status == 0, "the child's creation")
    try line("parent", target)
}

func say(_ text: String) {
    var bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress, $0.count) }
}

func mountsScenario(_ directory: String) throws {
    func sees() throws -> Bool {
        try MountedVolumes.shared().table.entries.contains { $0.mountPoint == Array(directory.utf8) }
    }
    check(try !sees(), "the mount point is free")
    var pipeEnds: [CInt] = [0, 0]
    check(pipe(&pipeEnds) == 0, "pipe")
    let child = fork()
    check(child >= 0, "fork")
    if child == 0 {
        var byte: UInt8 = 0
        _ = read(pipeEnds[0], &byte, 1)
        let seen = (try? sees()) ?? false
        say("child-sees \(seen ? "yes" : "no")")
        _exit(0)
    }
    check(mount("tmpfs-probe", directory, "tmpfs", 0, nil) == 0, "mount")
    var byte: UInt8 = 1
    _ = write(pipeEnds[1], &byte, 1)
    var status: CInt = 0
    check(waitpid(child, &status, 0) == child, "waitpid")
    let seen = try sees()
    say("parent-sees \(seen ? "yes" : "no")")
    check(umount(directory) == 0, "umount")
}

func linksScenario(_ directory: String) throws {
    func link(_ descriptor: OwnedDescriptor) -> String {
        guard let bytes = try? descriptor.currentPathBytes() else { return "-" }
        return String(decoding: bytes, as: UTF8.self)
    }
    let one = try Directory.current.open(FilePath(directory + "/one"), options: [.pathOnly])
    say("before-fork \(link(one))")
    let child = fork()
    check(child >= 0, "fork")
    if child == 0 {
        let number = one.rawValue
        try? one.close()
        guard let two = try? Directory.current.open(FilePath(directory + "/two"), options: [.pathOnly]) else {
            say("child-link open-failed")
            _exit(1)
        }
        say("same-number \(two.rawValue == number ? "yes" : "no")")
        say("child-link \(link(two))")
        _exit(0)
    }
    var status: CInt = 0
    check(waitpid(child, &status, 0) == child, "waitpid")
    say("parent-link \(link(one))")
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "ids":
        for path in arguments.dropFirst() { try line("ids", path) }
    case "fork" where arguments.count == 2:
        try forkScenario(arguments[1])
    case "mounts" where arguments.count == 2:
        try mountsScenario(arguments[1])
    case "links" where arguments.count == 2:
        try linksScenario(arguments[1])
    default:
        print("usage: create-probe ids PATH... | fork DIR | mounts DIR | links DIR")
        exit(2)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
