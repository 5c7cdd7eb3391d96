// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// `Directory.replace` when another writer replaces the same name at the same moment: the later
/// rename wins, and neither call fails. Before, a replace whose file was superseded between its
/// rename and its identity check threw `EAGAIN` ("the object changed between two steps"): two
/// `bookmark make -o same.bookmark` at once failed one time in seven. A file of ours still linked
/// elsewhere (the temporary name swapped before the rename) is still refused.
@Suite("Replace superseded by a concurrent writer")
struct ReplaceSupersededTests {
    /// Runs `act` once, right after the first `renameat2` of the test's replace.
    final class AfterRename: SyscallObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        private let act: @Sendable () -> Void
        init(_ act: @escaping @Sendable () -> Void) { self.act = act }
        func fault(for call: SyscallCall) -> Errno? { nil }
        func record(_ call: SyscallCall, outcome: SyscallOutcome) {
            guard call.name == "renameat2", case .returned = outcome else { return }
            let first = lock.withLock { () -> Bool in
                defer { done = true }
                return !done
            }
            if first { act() }
        }
    }

    /// Runs `act` once, right before the first `renameat2`.
    final class BeforeRename: SyscallObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        private let act: @Sendable (SyscallCall) -> Void
        init(_ act: @escaping @Sendable (SyscallCall) -> Void) { self.act = act }
        func fault(for call: SyscallCall) -> Errno? {
            guard call.name == "renameat2" else { return nil }
            let first = lock.withLock { () -> Bool in
                defer { done = true }
                return !done
            }
            if first { act(call) }
            return nil
        }
        func record(_ call: SyscallCall, outcome: SyscallOutcome) {}
    }

    @Test("another writer's rename over the name between ours and the check: both succeed, the later file stays")
    func supersededAfterRename() throws {
        let base = try TreeFixture.scratch("superseded")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = try Directory(opening: FilePath(base))
        try root.replace("same", contents: Array("first".utf8))
        try Data("other writer".utf8).write(to: URL(fileURLWithPath: base + "/other"))
        let other = AfterRename { _ = rename(base + "/other", base + "/same") }
        let outcome = try SyscallSeam.$observer.withValue(other) {
            try root.replace("same", contents: Array("ours".utf8))
        }
        #expect(try String(contentsOfFile: base + "/same", encoding: .utf8) == "other writer")
        // The outcome names our file (now superseded), not the other writer's.
        let now = try root.status(of: "same")
        #expect(outcome.written.inode != now.inode)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["same"])
    }

    @Test("our temporary name swapped for another file before the rename: refused, our file still linked elsewhere")
    func swappedTemporaryIsRefused() throws {
        let base = try TreeFixture.scratch("swapped")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = try Directory(opening: FilePath(base))
        try Data("planted".utf8).write(to: URL(fileURLWithPath: base + "/planted"))
        let swap = BeforeRename { call in
            guard let name = call.path.map({ String(decoding: $0, as: UTF8.self) }) else { return }
            // Ours moves aside (still linked), another file takes its temporary name.
            _ = rename(base + "/" + name, base + "/kept-aside")
            _ = rename(base + "/planted", base + "/" + name)
        }
        #expect(throws: FileSystemError.self) {
            try SyscallSeam.$observer.withValue(swap) { try root.replace("target", contents: Array("ours".utf8)) }
        }
        #expect(try String(contentsOfFile: base + "/kept-aside", encoding: .utf8) == "ours")
    }

    @Test("four writers replacing one name 200 times each: no failure, every read a whole file")
    func concurrentWriters() async throws {
        let base = try TreeFixture.scratch("writers")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let contents = (0..<4).map { writer in Array(String(repeating: "\(writer)", count: 4096).utf8) }
        let failures = RaceTests.Failures()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    do {
                        let root = try Directory(opening: FilePath(base))
                        for _ in 0..<200 { try root.replace("same", contents: contents[writer]) }
                    } catch { failures.add("writer \(writer): \(error)") }
                }
            }
            group.addTask {
                for _ in 0..<400 {
                    guard let read = FileManager.default.contents(atPath: base + "/same") else { continue }
                    if !contents.contains(Array(read)) { failures.add("a torn read of \(read.count) bytes") }
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["same"])
    }
}
