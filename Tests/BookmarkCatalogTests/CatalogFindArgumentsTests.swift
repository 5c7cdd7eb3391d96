// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// Command-line values of `catalog find` and `export` that were refused or lost: a PATTERN that
/// is not UTF-8, an odd number of hash digits, `--size -N`, `--columns all`.
@Suite("Catalog find and export arguments")
struct CatalogFindArgumentsTests {
    /// A scanned tree: two files with the same contents (hashed), and an empty file whose name is
    /// Latin-1 (`caf\xe9.txt`).
    private func scanned() throws -> (root: String, catalog: String, cleanUp: () -> Void) {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-args")
        try fixture.file("a", "same")
        try fixture.file("b", "same")
        try Shell.check(["sh", "-c", "printf '' > \"$1/$(printf 'caf\\351.txt')\"", "sh", fixture.root])
        let catalog = folder + "/c.catalog"
        let scan = try CatalogCLI.run(["scan", "--hash", fixture.root, "-o", catalog])
        #expect(scan.status == 0, "\(scan.stderr)")
        return (fixture.root, catalog, cleanUp)
    }

    @Test("a PATTERN that is not UTF-8 matches the name byte for byte (CLI and library)")
    func latin1Pattern() throws {
        let (root, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
        let run = try Shell.run(bytes: [Array(try CatalogCLI.binary().utf8), Array("catalog".utf8), Array("find".utf8), Array(catalog.utf8), name])
        #expect(run.status == 0, "\(run.stderr)")
        #expect([UInt8](run.stdoutData).starts(with: Array(root.utf8) + [0x2F] + name))
        let glob = try Shell.run(bytes: [Array(try CatalogCLI.binary().utf8), Array("catalog".utf8), Array("find".utf8), Array(catalog.utf8), Array("caf".utf8) + [0xE9] + Array("*".utf8)])
        #expect(glob.status == 0, "\(glob.stderr)")
        let hits = try Catalog(path: catalog, create: false).find(CatalogQuery(pattern: .globBytes(name)))
        #expect(hits.map(\.entry.name) == [name])
    }

    @Test("--hash takes any number of hex digits, an odd number too, in either case; other text is 64")
    func hashPrefix() throws {
        let (root, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        let digest = try Shell.check(["sh", "-c", "printf same | sha256sum | cut -c1-64"]).trimmingCharacters(in: .whitespacesAndNewlines)
        for digits in [String(digest.prefix(7)), String(digest.prefix(1)), String(digest.prefix(8)).uppercased(), digest] {
            let run = try CatalogCLI.run(["find", catalog, "*", "--hash", digits])
            #expect(run.status == 0, "\(digits): \(run.stderr)")
            #expect(run.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) } == ["\(root)/a", "\(root)/b"], "\(digits)")
        }
        let other = digest.first == "0" ? "1" : "0"
        #expect(try CatalogCLI.run(["find", catalog, "*", "--hash", other + String(digest.dropFirst().prefix(6))]).status == 3)
        #expect(try CatalogCLI.run(["find", catalog, "*", "--hash", "7cz"]).status == 64)
    }

    @Test("--size -N is at most N bytes (a value starting with '-'), and +N, N and --size=-N still work")
    func sizeAtMost() throws {
        let (root, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        func paths(_ arguments: [String]) throws -> [String] {
            let run = try CatalogCLI.run(["find", catalog] + arguments + ["--type", "f"])
            #expect(run.status == 0 || run.status == 3, "\(arguments): \(run.stderr)")
            return run.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
        }
        let latin1 = "\(root)/caf\u{FFFD}.txt"
        #expect(try paths(["--size", "-1", "*"]).map { $0.hasPrefix("\(root)/caf") } == [true], "\(latin1)")
        #expect(try paths(["--size=-1", "*"]).count == 1)
        #expect(try paths(["--size", "+1", "*"]) == ["\(root)/a", "\(root)/b"])
        #expect(try paths(["--size", "4", "*"]) == ["\(root)/a", "\(root)/b"])
    }

    @Test("--columns all exports every column, in the documented order")
    func allColumns() throws {
        let (_, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        let run = try CatalogCLI.run(["export", catalog, "--csv", "--columns", "all"])
        #expect(run.status == 0, "\(run.stderr)")
        let header = run.stdout.split(separator: "\r\n").first.map(String.init)
        #expect(header == CatalogColumn.allCases.map(\.rawValue).joined(separator: ","))
        #expect(try CatalogCLI.run(["export", catalog, "--csv", "--columns", "path,colour"]).status == 64)
    }

    @Test("a catalog argument is a .catalog name or an SQLite file: a forgotten PATTERN is 64, a script named as PATTERN is one")
    func whichArgumentIsTheCatalog() throws {
        let (_, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        let folder = (catalog as NSString).deletingLastPathComponent
        // A catalog under another name: told by its SQLite header.
        let database = folder + "/drives.db"
        try FileManager.default.copyItem(atPath: catalog, toPath: database)
        let script = folder + "/fill.sh"
        try Data("echo fill\n".utf8).write(to: URL(fileURLWithPath: script))

        for lone in [catalog, database] {
            // It was taken for the PATTERN, and the default catalog searched for it (66).
            let forgotten = try CatalogCLI.run(["find", lone])
            #expect(forgotten.status == 64, "\(forgotten.stderr)")
            #expect(forgotten.stderr.contains("no PATTERN"), "\(forgotten.stderr)")
            #expect(forgotten.stderr.contains("Usage: bookmark catalog find"), "\(forgotten.stderr)")
        }
        // An existing file that is not a catalog is the PATTERN (it was opened as a catalog: 66).
        let duplicates = try CatalogCLI.run(["find", catalog, "--duplicates", script])
        #expect(duplicates.status == 3, "no duplicate is named so: \(duplicates.stderr)")
        #expect(duplicates.stderr.isEmpty, "\(duplicates.stderr)")
        let pair = try CatalogCLI.run(["find", catalog, "--duplicates", "?"])
        #expect(pair.status == 0, "a and b: \(pair.stderr)")
        // Still a search: a glob that ends in .catalog.
        let glob = try CatalogCLI.run(["find", catalog, "*.catalog"])
        #expect(glob.status == 3, "\(glob.stderr)")
    }

    @Test("export: a lone argument that is no catalog is 64 (give -o FILE); -o FILE writes the catalog given or the default one")
    func exportFile() throws {
        let (root, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        let folder = (catalog as NSString).deletingLastPathComponent
        let out = folder + "/out.csv"
        let lone = try CatalogCLI.run(["export", out, "--csv"])
        #expect(lone.status == 64, "it was opened as the catalog (66): \(lone.stderr)")
        #expect(lone.stderr.contains("-o"), "\(lone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let named = try CatalogCLI.run(["export", catalog, "--csv", "-o", out])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains(root))
        // The default catalog, to a FILE.
        let data = folder + "/data"
        try FileManager.default.createDirectory(atPath: data + "/swift-bookmarks", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: catalog, toPath: data + "/swift-bookmarks/volumes.catalog")
        let defaultOut = folder + "/default.tsv"
        let fromDefault = try Shell.run(["env", "XDG_DATA_HOME=" + data, try CatalogCLI.binary(), "catalog", "export", "--tsv", "-o", defaultOut])
        #expect(fromDefault.status == 0, "\(fromDefault.stderr)")
        #expect(try String(contentsOfFile: defaultOut, encoding: .utf8).contains(root))

        let both = try CatalogCLI.run(["export", catalog, "--csv", out, "-o", out])
        #expect(both.status == 64)
        // Two arguments are still CATALOG FILE, whatever their names.
        let database = folder + "/drives.db"
        try FileManager.default.copyItem(atPath: catalog, toPath: database)
        let old = try CatalogCLI.run(["export", database, "--csv", folder + "/two.csv"])
        #expect(old.status == 0, "\(old.stderr)")
    }

    @Test("bad --newer, --size and --hash values print find's usage line, not the top-level one")
    func findUsageLine() throws {
        let (_, catalog, cleanUp) = try scanned()
        defer { cleanUp() }
        for bad in [["--newer", "soon"], ["--size", "big"], ["--hash", "xyz"]] {
            let run = try CatalogCLI.run(["find", catalog, "a"] + bad)
            #expect(run.status == 64)
            #expect(run.stderr.contains("Usage: bookmark catalog find"), "\(run.stderr)")
        }
    }
}

/// Small failures that printed the wrong thing or exited with the wrong code.
@Suite("Catalog failures explained")
struct CatalogFailureMessageTests {
    @Test("an invalid --regex says what is wrong, not NSCocoaErrorDomain Code=2048")
    func invalidRegex() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-regex")
        defer { cleanUp() }
        try fixture.file("a")
        let catalog = folder + "/c.catalog"
        #expect(try CatalogCLI.run(["scan", fixture.root, "-o", catalog]).status == 0)
        for (expression, reason) in [("(", "a '(' with no ')'"), ("*a", "nothing to repeat before '*'"), ("a[b", "a '[' with no ']'"), ("(?<x", "a '(' with no ')'")] {
            let run = try CatalogCLI.run(["find", catalog, "--regex", expression])
            #expect(run.status == 64)
            #expect(run.stderr == "bookmark: not a valid regular expression: \(expression): \(reason)\n", "\(run.stderr)")
        }
    }

    @Test("a damaged catalog and a directory are 66 with a sentence for find, diff and export")
    func damagedAndDirectory() throws {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-damaged")
        defer { cleanUp() }
        for index in 0..<3000 { try fixture.file("d\(index % 30)/file-\(index)", "") }
        let catalog = folder + "/c.catalog"
        #expect(try CatalogCLI.run(["scan", fixture.root, "-o", catalog]).status == 0)
        // Pages past the header overwritten: the open succeeds, the first read finds the damage.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: catalog))
        try handle.seek(toOffset: 4096 * 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096 * 64))
        try handle.close()
        for arguments in [["find", catalog, "file-1"], ["diff", catalog], ["export", catalog, "--csv"]] {
            let run = try CatalogCLI.run(arguments)
            #expect(run.status == 66, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("not a catalog: the file is damaged"), "\(run.stderr)")
        }
        let directory = folder + "/folder.catalog"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        for arguments in [["find", directory, "x"], ["scan", fixture.root, "-o", directory]] {
            let run = try CatalogCLI.run(arguments)
            #expect(run.status == 66)
            #expect(run.stderr.contains("a directory, not a catalog"), "\(run.stderr)")
        }
    }
}
