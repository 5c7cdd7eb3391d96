// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import SecureFiles
import Testing

/// A package write syncs the files of a directory after writing all of them (each started on its
/// way to the device with `sync_file_range` as it is written), so that one journal commit covers
/// many; still each file before its directory, and everything before the new tree is swapped in.
@Suite("When a package write syncs its new files")
struct FileWrapperSyncOrderTests {
    @Test("each new file: created, writeback started, synced, closed; a directory's files synced after all were written, before the directory and the rename")
    func syncOrder() throws {
        try withScratchDirectory("sync-order") { root in
            let url = root.appendingPathComponent("Doc.pkg")
            let wrapper = FileWrapper(directoryWithFileWrappers: [:])
            let topNames = (0..<6).map { "note-\($0).txt" }
            for name in topNames { wrapper.addRegularFile(withContents: Data(name.utf8), preferredFilename: name) }
            let sub = FileWrapper(directoryWithFileWrappers: [:])
            for name in ["x.txt", "y.txt"] { sub.addRegularFile(withContents: Data(name.utf8), preferredFilename: name) }
            sub.preferredFilename = "Sub"
            wrapper.addFileWrapper(sub)
            let trace = AuditLog(level: .calls)
            try SyscallSeam.$observer.withValue(trace) {
                try wrapper.write(to: url, options: [.atomic], originalContentsURL: nil)
            }
            let calls = trace.effects
            func text(_ bytes: [UInt8]?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "" }
            // Each created file: where it was created, and its descriptor.
            var created: [String: (index: Int, fd: CInt)] = [:]
            for (index, effect) in calls.enumerated()
            where effect.call.name == "openat" && (effect.call.flags ?? 0) & Int64(O_CREAT) != 0 {
                if case .returned(let fd) = effect.outcome { created[text(effect.call.path)] = (index, CInt(fd)) }
            }
            #expect(Set(created.keys) == Set(topNames + ["x.txt", "y.txt"]))
            var synced: [String: Int] = [:]
            for (name, (index, fd)) in created {
                let after = calls.enumerated().dropFirst(index + 1)
                let start = after.first { $0.element.call.descriptor == fd && $0.element.call.name == "sync_file_range" }?.offset
                let sync = after.first { $0.element.call.descriptor == fd && $0.element.call.name == "fsync" }?.offset
                let close = after.first { $0.element.call.descriptor == fd && $0.element.call.name == "close" }?.offset
                guard let start, let sync, let close else {
                    Issue.record("\(name): writeback \(String(describing: start)), fsync \(String(describing: sync)), close \(String(describing: close))")
                    continue
                }
                #expect(start < sync && sync < close, "\(name): writeback started, then synced, then closed")
                synced[name] = sync
            }
            // Deferred: no file of the top directory is synced before the last of them was written.
            let lastTopWrite = topNames.compactMap { created[$0]?.index }.max() ?? 0
            #expect(topNames.allSatisfy { (synced[$0] ?? 0) > lastTopWrite }, "a file was synced before its siblings were written")
            // Everything synced before the new package is put in place.
            let rename = try #require(calls.lastIndex { $0.call.name == "renameat2" })
            #expect(synced.values.allSatisfy { $0 < rename })
            // Each directory's own fsync comes after its files'.
            let fsyncs = calls.indices.filter { calls[$0].call.name == "fsync" }
            let fileSyncs = Set(synced.values)
            let directorySyncs = fsyncs.filter { !fileSyncs.contains($0) }
            #expect(directorySyncs.count >= 2, "the subdirectory, the package and the parent are synced")
            #expect(["x.txt", "y.txt"].allSatisfy { (synced[$0] ?? .max) < directorySyncs[0] }, "Sub's files before Sub")
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() == (topNames + ["Sub"]).sorted())
            #expect(try String(contentsOf: url.appendingPathComponent("Sub/y.txt"), encoding: .utf8) == "y.txt")
        }
    }
}
