// SPDX-License-Identifier: Apache-2.0
// Saving a big document package with one file changed (issue 16): FileWrapper's atomic,
// incremental save against the least any such save must do, measured in the same run.
import Documents
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Bench {
    /// FileWrapper's save of a package of `children` files with one changed, against creating a new
    /// directory, hard-linking the other files into it and writing (and syncing) the changed one.
    mutating func packageSave(children: Int = 10_000) throws -> [MetricResult] {
        let root = workload.root + "/bench-package"
        let package = root + "/Big.pkg"
        let source = root + "/source"
        let names = (0..<children).map { String(format: "note-%05d.txt", $0) }
        for directory in [package, source] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in names {
                guard FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(repeating: 0x61, count: 64)) else {
                    throw BenchError("cannot create \(directory)/\(name)")
                }
            }
        }
        defer { try? FileManager.default.removeItem(atPath: root) }

        let url = URL(fileURLWithPath: package)
        let wrapper = try FileWrapper(url: url)
        guard wrapper.fileWrappers?.count == children else { throw BenchError("the package did not list \(children) children") }
        let sourceFD = open(source, O_RDONLY | O_DIRECTORY)
        guard sourceFD >= 0 else { throw BenchError("cannot open \(source)") }
        defer { close(sourceFD) }
        let changed = names[0]
        var counter = 0
        func save() throws {
            counter += 1
            if let old = wrapper.fileWrappers?[changed] { wrapper.removeFileWrapper(old) }
            wrapper.addRegularFile(withContents: Data("edit \(counter)".utf8), preferredFilename: changed)
            try wrapper.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)
        }
        func linkAll(into directory: String) throws {
            guard mkdir(directory, 0o755) == 0 else { throw BenchError("mkdir \(directory): errno \(errno)") }
            let target = open(directory, O_RDONLY | O_DIRECTORY)
            guard target >= 0 else { throw BenchError("open \(directory)") }
            defer { close(target) }
            for name in names.dropFirst() where linkat(sourceFD, name, target, name, 0) != 0 {
                throw BenchError("linkat \(name): errno \(errno)")
            }
            let file = openat(target, changed, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            guard file >= 0 else { throw BenchError("openat \(changed)") }
            let text = Array("edit".utf8)
            _ = text.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
            fsync(file)
            close(file)
        }
        /// The same, then every entry unlinked and the directory removed: what replacing a
        /// directory of hard links costs at the least (a new tree in, an old tree out).
        func linkAllAndRemove(into directory: String) throws {
            try linkAll(into: directory)
            let target = open(directory, O_RDONLY | O_DIRECTORY)
            guard target >= 0 else { throw BenchError("open \(directory)") }
            for name in names where unlinkat(target, name, 0) != 0 {
                close(target)
                throw BenchError("unlinkat \(name): errno \(errno)")
            }
            close(target)
            guard rmdir(directory) == 0 else { throw BenchError("rmdir \(directory)") }
        }
        // One save and one baseline per run (each takes long enough to time alone), alternating
        // which goes first; the baseline's directory is removed between runs, untimed.
        let clock = ContinuousClock()
        var ours: [Double] = []
        var baseline: [Double] = []
        try save()  // warm: the first save after reading lists and stats every child
        for run in 0..<max(3, measure.runs) {
            let directory = root + "/baseline-\(run)"
            if run % 2 == 0 {
                ours.append(seconds(try clock.measure { try save() }))
                baseline.append(seconds(try clock.measure { try linkAll(into: directory) }))
            } else {
                baseline.append(seconds(try clock.measure { try linkAll(into: directory) }))
                ours.append(seconds(try clock.measure { try save() }))
            }
            try FileManager.default.removeItem(atPath: directory)
        }
        let comparison = Comparison(ours: ours, baseline: baseline)
        var withRemoval: [Double] = []
        for run in 0..<max(3, measure.runs) {
            withRemoval.append(seconds(try clock.measure { try linkAllAndRemove(into: root + "/replace-\(run)") }))
        }
        let replacing = Comparison(ours: ours, baseline: withRemoval)
        return [
            MetricResult(
                "save a \(children)-file package, one file changed (FileWrapper)", baseline: "mkdir + linkat others + write one",
                target: .ratioAtMost(1.5), comparison,
                note: "atomic: staged beside, linked, synced bottom-up, RENAME_EXCHANGE, old tree removed"),
            MetricResult(
                "save a \(children)-file package, one file changed (FileWrapper)", baseline: "the same + unlink every entry",
                target: .none, replacing,
                note: "the least a replace of a tree of links costs: one link in and one unlink out per file"),
        ]
    }
}
