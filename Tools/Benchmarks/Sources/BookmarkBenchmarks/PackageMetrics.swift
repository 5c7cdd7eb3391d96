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
        let (root, package, names) = try makeBenchPackage(children: children)
        let source = root + "/source"
        defer { try? FileManager.default.removeItem(atPath: root) }

        let url = URL(fileURLWithPath: package)
        let wrapper = try FileWrapper(url: url)
        guard wrapper.fileWrappers?.count == children else { throw BenchError("the package did not list \(children) children") }
        let sourceFD = open(source, O_RDONLY | O_DIRECTORY)
        guard sourceFD >= 0 else { throw BenchError("cannot open \(source)") }
        defer { close(sourceFD) }
        let changed = names[0]
        let edits = PackageEdits(url: url, changed: changed)
        // The edit (the app's part) is made before the clock starts: only the save is timed.
        func save(_ extra: FileWrapper.WritingOptions = []) throws { try edits.save(wrapper, extra) }
        func timedSave(_ extra: FileWrapper.WritingOptions = []) throws -> Double {
            edits.edit(wrapper)
            return seconds(try clock.measure { try edits.write(wrapper, extra) })
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
        // Each run times saves and baselines in pairs, alternating which goes first, until its
        // saves have taken `measure.minimumTime` (the rule every other row follows: a save takes
        // 100–300 ms, and one alone was a single sample at the mercy of one journal commit), and
        // keeps each side's mean. Each baseline's directory is removed, untimed, after it.
        let clock = ContinuousClock()
        var made = 0
        /// One timed baseline into a new directory: `linkAll`, or with `replacing` `linkAllAndRemove`
        /// (which leaves nothing to remove).
        func timedBaseline(replacing: Bool = false) throws -> Double {
            made += 1
            let directory = root + "/baseline-\(made)"
            let time = seconds(try clock.measure { try replacing ? linkAllAndRemove(into: directory) : linkAll(into: directory) })
            if !replacing { try FileManager.default.removeItem(atPath: directory) }
            return time
        }
        /// One run: (our mean, the baseline's mean) over pairs repeated for the minimum time.
        func pairedRun(_ run: Int, ours: () throws -> Double, baseline: () throws -> Double) throws -> (Double, Double) {
            var (oursTotal, baselineTotal, pairs) = (0.0, 0.0, 0)
            repeat {
                if run % 2 == 0 {
                    oursTotal += try ours()
                    baselineTotal += try baseline()
                } else {
                    baselineTotal += try baseline()
                    oursTotal += try ours()
                }
                pairs += 1
            } while oursTotal < seconds(measure.minimumTime)
            return (oursTotal / Double(pairs), baselineTotal / Double(pairs))
        }
        func runs(ours: () throws -> Double, baseline: () throws -> Double) throws -> Comparison {
            var samples: [(Double, Double)] = []
            for run in 0..<max(3, measure.runs) { samples.append(try pairedRun(run, ours: ours, baseline: baseline)) }
            return Comparison(ours: samples.map(\.0), baseline: samples.map(\.1))
        }
        try save()  // warm: the first save after reading lists and stats every child
        let comparison = try runs(ours: { try timedSave() }, baseline: { try timedBaseline() })
        let replacing = try runs(
            ours: { try timedSave() },
            baseline: { try timedBaseline(replacing: true) })

        // What the caller waits for when the old tree goes in the background: FileWrapper with
        // the option, and DocumentController.save() (which uses it). Each background removal is
        // waited for, untimed, before the next measurement, so it never overlaps one.
        let background = try runs(
            ours: {
                let time = try timedSave(.removingOldTreeInBackground)
                FileWrapper.waitForBackgroundRemovals()
                return time
            }, baseline: { try timedBaseline() })
        // The document opens the package once the wrapper above is done with it (two writers of
        // one package would be a conflict), and is saved once untimed, as the wrapper was.
        let controller = try DocumentController<BenchNotes>(contentsOf: url, contentType: BenchNotes.type)
        func documentSave() throws -> Double {
            edits.edit(controller)
            let time = seconds(try clock.measure { try controller.save() })
            FileWrapper.waitForBackgroundRemovals()
            return time
        }
        _ = try documentSave()
        let document = try runs(ours: documentSave, baseline: { try timedBaseline() })
        return [
            MetricResult(
                "save a \(children)-file package, one file changed (FileWrapper)", baseline: "mkdir + linkat others + write one",
                target: .none, comparison,
                note: "atomic: staged beside, linked, synced bottom-up, RENAME_EXCHANGE, old tree removed before returning"),
            MetricResult(
                "save a \(children)-file package, one file changed (FileWrapper)", baseline: "the same + unlink every entry",
                target: .none, replacing,
                note: "the least a replace of a tree of links costs: one link in and one unlink out per file"),
            MetricResult(
                "the same, .removingOldTreeInBackground (FileWrapper)", baseline: "mkdir + linkat others + write one",
                target: .ratioAtMost(1.5), background,
                note: "until the call returns; the old tree is removed after, and waited for untimed"),
            MetricResult(
                "the same through DocumentController.save()", baseline: "mkdir + linkat others + write one",
                target: .ratioAtMost(1.5), document,
                note: "the document default: conflict check, writers' lock, save in the background mode, bookmark"),
        ]
    }
}

extension Bench {
    /// The package the package rows save: `Big.pkg` of `children` 64-byte files under
    /// `<tree>/bench-package`, and a `source` folder of the same files for the baseline to link from.
    func makeBenchPackage(children: Int) throws -> (root: String, package: String, names: [String]) {
        let root = workload.root + "/bench-package"
        let package = root + "/Big.pkg"
        let names = (0..<children).map { String(format: "note-%05d.txt", $0) }
        for directory in [package, root + "/source"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in names {
                guard FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(repeating: 0x61, count: 64)) else {
                    throw BenchError("cannot create \(directory)/\(name)")
                }
            }
        }
        return (root, package, names)
    }

    /// `--profile package-save` and `document-save`: `iterations` saves of the 10,000-file package
    /// with one file changed, as the rows make them (FileWrapper with `.removingOldTreeInBackground`,
    /// or `DocumentController.save()`). Each background removal is waited for after its save, as
    /// the rows do; only the saves are timed, on the calling thread's clock (`RUSAGE_THREAD`), so
    /// the removal thread's work is not counted.
    func profilePackageSave(document: Bool, iterations: Int) throws {
        let (root, package, names) = try makeBenchPackage(children: 10_000)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let url = URL(fileURLWithPath: package)
        let edits = PackageEdits(url: url, changed: names[0])
        let edit: () -> Void
        let save: () throws -> Void
        if document {
            let controller = try DocumentController<BenchNotes>(contentsOf: url, contentType: BenchNotes.type)
            edit = { edits.edit(controller) }
            save = { try controller.save() }
        } else {
            let wrapper = try FileWrapper(url: url)
            edit = { edits.edit(wrapper) }
            save = { try edits.write(wrapper, .removingOldTreeInBackground) }
        }
        for _ in 0..<2 {  // warm: the first save after reading stats every child
            edit()
            try save()
            FileWrapper.waitForBackgroundRemovals()
        }
        var spent = ProcessTimes(wall: 0, user: 0, system: 0)
        for _ in 0..<iterations {
            edit()  // the app's part, untimed, as in the rows
            let before = ProcessTimes.now(thread: true)
            try profileLoop(1, save)
            spent = spent + (ProcessTimes.now(thread: true) - before)
            FileWrapper.waitForBackgroundRemovals()
        }
        print("profiled \(document ? "document-save" : "package-save"): \(iterations) saves, \(spent) (calling thread)")
    }
}

/// The edit every package row and profile saves: one note's contents changed, new each time.
final class PackageEdits {
    let url: URL
    /// The note that changes.
    let changed: String
    private var counter = 0

    init(url: URL, changed: String) {
        self.url = url
        self.changed = changed
    }

    /// Replaces the note's wrapper in `wrapper` and saves it atomically in place, linking the rest
    /// from the package (`extra`: more writing options, such as `.removingOldTreeInBackground`).
    func save(_ wrapper: FileWrapper, _ extra: FileWrapper.WritingOptions = []) throws {
        edit(wrapper)
        try write(wrapper, extra)
    }

    /// The app's part of a save: the note's wrapper replaced by one with new contents.
    func edit(_ wrapper: FileWrapper) {
        counter += 1
        if let old = wrapper.fileWrappers?[changed] { wrapper.removeFileWrapper(old) }
        wrapper.addRegularFile(withContents: Data("edit \(counter)".utf8), preferredFilename: changed)
    }

    /// The save itself: atomically in place, the unchanged children linked from the package.
    func write(_ wrapper: FileWrapper, _ extra: FileWrapper.WritingOptions = []) throws {
        try wrapper.write(to: url, options: FileWrapper.WritingOptions([.atomic, .withNameUpdating]).union(extra), originalContentsURL: url)
    }

    /// The app's part of a document save: the note changed in the document's model. The model
    /// (`BenchNotes`, written the SwiftUI way) works out what changed by comparing every note,
    /// about 3.5 ms for 10,000: the app's cost, not `DocumentController.save()`'s, so the rows
    /// time only the save.
    func edit(_ controller: DocumentController<BenchNotes>) {
        counter += 1
        controller.document.notes[changed] = Data("document edit \(counter)".utf8)
    }
}

/// A package document of notes, written the SwiftUI way: unchanged notes are the existing file's
/// wrappers, so they are linked.
struct BenchNotes: FileDocument {
    static let type = UTType(exportedAs: "com.example.bench-notes", conformingTo: .package, filenameExtensions: ["pkg"])
    static var readableContentTypes: [UTType] { [type] }

    var notes: [String: Data] {
        didSet { changed = Set(notes.keys.filter { notes[$0] != oldValue[$0] }).union(changed) }
    }
    var changed: Set<String> = []

    init(configuration: ReadConfiguration) throws {
        guard let children = configuration.file.fileWrappers else { throw CocoaError(.fileReadCorruptFile) }
        notes = children.compactMapValues { $0.regularFileContents }
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let directory = configuration.existingFile ?? FileWrapper(directoryWithFileWrappers: [:])
        for name in changed {
            if let old = directory.fileWrappers?[name] { directory.removeFileWrapper(old) }
            if let data = notes[name] { directory.addRegularFile(withContents: data, preferredFilename: name) }
        }
        return directory
    }
}
