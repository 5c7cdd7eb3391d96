// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// The process's shared mount table (`MountedVolumes.shared()`), which every call given no table
/// uses: revalidated by one `epoll_wait` per call, re-read only after a mount or unmount.
@Suite("The shared mount table", .serialized, .requiresRealVolumes)
struct SharedMountTableTests {
    @Test("an unmount and a mount made by another process between two default-path resolutions are seen by the next one")
    func seenByTheNextCall() throws {
        try LoopVolume.withVolume(.ext4, label: "shared") { volume in
            let file = volume.path("song.flac")
            try Data("la".utf8).write(to: URL(fileURLWithPath: file))
            let bookmark = try Bookmark.create(for: FilePath(file))
            #expect(try bookmark.resolve().path == FilePath(file))
            let point = try #require(volume.mountPoint)

            // Unchanged: the same table, not read again. (Other suites mount and unmount loop
            // volumes meanwhile, so two calls with no change between them are looked for.)
            let unchanged = try (0..<50).contains { _ in try MountedVolumes.shared() === MountedVolumes.shared() }
            #expect(unchanged, "every call read the table again")
            let before = try MountedVolumes.shared()

            try volume.unmount(keepDevice: true)  // umount(8): another process
            let unmounted = Result { () throws(BookmarkError) in try bookmark.resolve() }
            if case .failure(let error) = unmounted {
                #expect(error.code == .volumeNotMounted, "\(error)")
            } else {
                Issue.record("resolved on an unmounted volume: the shared table did not see the unmount")
            }
            #expect(try MountedVolumes.shared() !== before)

            try volume.mount(at: point)  // mount(8): another process
            #expect(try bookmark.resolve().path == FilePath(file))
        }
    }

    @Test("an unchanged table costs one epoll_wait; a re-read adds mountinfo to its epoll set before reading it")
    func callsPerCheck() throws {
        // The order is what makes the check sound: the add takes any change since the open
        // without reporting it, so the table must be read after it (ReadinessSet).
        // Other suites resolve on other threads meanwhile: one of them may read the table between
        // the reset and this call (a CI run on a loaded machine did), and then this call has
        // nothing to read. So a call that did read it is looked for.
        func opensMountinfo(_ log: AuditLog) -> Int? {
            log.calls.firstIndex { $0.name.hasPrefix("open") && $0.path == Array("/proc/self/mountinfo".utf8) }
        }
        var found: AuditLog?
        for _ in 0..<50 where found == nil {
            MountedVolumes.resetShared()
            let trace = AuditLog(level: .calls)
            _ = try SyscallSeam.$observer.withValue(trace) { () throws(FileIdentityError) in try MountedVolumes.shared() }
            if opensMountinfo(trace) != nil { found = trace }
        }
        let reread = try #require(found, "in 50 tries, another thread always read the table first")
        let names = reread.calls.map(\.name)
        let open = try #require(opensMountinfo(reread))
        let add = try #require(names.firstIndex(of: "epoll_ctl"), "\(names)")
        let firstRead = try #require(names.firstIndex(of: "read"), "\(names)")
        #expect(open < add && add < firstRead, "\(names)")
        #expect(reread.calls[add].secondDescriptor == reread.calls[firstRead].descriptor, "\(names)")

        // Unchanged (other suites mount loop volumes meanwhile, so a quiet call is looked for).
        let quiet = (0..<50).contains { _ in
            let trace = AuditLog(level: .calls)
            _ = try? SyscallSeam.$observer.withValue(trace) { () throws(FileIdentityError) in try MountedVolumes.shared() }
            return trace.calls.map(\.name) == ["epoll_wait"]
        }
        #expect(quiet, "no call was a single epoll_wait")
    }

    @Test("resetShared makes the next call read the table afresh")
    func reset() throws {
        let first = try MountedVolumes.shared()
        MountedVolumes.resetShared()
        let second = try MountedVolumes.shared()
        #expect(first !== second)
    }

    @Test("after fork, the child reads its own table and the parent still sees the next mount")
    func fork() throws {
        let probe = try #require(CreateProbe.path, "create-probe is built with the tests")
        let point = "/var/tmp/swift-bookmarks-shared-fork-\(UUID())"
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        defer {
            _ = try? Shell.run(["umount", point])
            try? FileManager.default.removeItem(atPath: point)
        }
        let output = try Shell.check([probe, "mounts", point])
        #expect(output.contains("child-sees yes"), "\(output)")
        #expect(output.contains("parent-sees yes"), "the child took the parent's notification: \(output)")
    }
}
