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
}
