// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// `-i` in globs (find's PATTERN, export's --include and --exclude) ignores case for UTF-8 names,
/// not only ASCII: glibc's FNM_CASEFOLD folds ASCII alone.
@Suite("Catalog globs ignoring case")
struct CatalogCaseFoldingTests {
    private func scanned() throws -> (root: String, catalog: String, cleanUp: () -> Void) {
        let (fixture, folder, cleanUp) = CatalogFixture.temporary("catalog-fold")
        for name in ["Éclair.txt", "ÅNGSTRÖM.TXT", "Straße.md", "README.TXT", "other.txt"] { try fixture.file(name) }
        try Shell.check(["sh", "-c", "printf '' > \"$1/$(printf 'CAF\\311.TXT')\"", "sh", fixture.root])
        let catalog = folder + "/c.catalog"
        let scan = try CatalogCLI.run(["scan", fixture.root, "-o", catalog])
        #expect(scan.status == 0, "\(scan.stderr)")
        return (fixture.root, catalog, cleanUp)
    }

    @Test("find -i: accented and other non-ASCII letters in either case; ASCII as before; bytes not UTF-8 fold ASCII only")
    func find() throws {
        let (root, path, cleanUp) = try scanned()
        defer { cleanUp() }
        let catalog = try Catalog(path: path, create: false)
        func names(_ pattern: CatalogQuery.Pattern, ignoringCase: Bool = true) throws -> [String] {
            try catalog.find(CatalogQuery(pattern: pattern, ignoringCase: ignoringCase)).map { String(decoding: $0.entry.name, as: UTF8.self) }
        }
        #expect(try names(.glob("éclair*")) == ["Éclair.txt"])
        #expect(try names(.glob("ångström.txt")) == ["ÅNGSTRÖM.TXT"])
        #expect(try names(.glob(root + "/Ångström.*")) == ["ÅNGSTRÖM.TXT"], "a path glob too")
        #expect(try names(.glob("STRASSE.MD")) == ["Straße.md"], "ß and SS fold alike")
        #expect(try names(.glob("readme.txt")) == ["README.TXT"])
        #expect(try names(.glob("éclair*"), ignoringCase: false).isEmpty, "without -i, case counts")
        // Latin-1 bytes: the ASCII letters fold, the byte 0xC9 must be given as it is.
        let latin1 = try catalog.find(CatalogQuery(pattern: .globBytes(Array("caf".utf8) + [0xC9] + Array(".txt".utf8)), ignoringCase: true))
        #expect(latin1.count == 1)

        let cli = try CatalogCLI.run(["find", path, "-i", "éclair*", "-0"])
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(cli.stdout.hasSuffix("/Éclair.txt\0"), "\(cli.stdout)")
    }

    @Test("export --include and --exclude with -i fold non-ASCII letters")
    func export() throws {
        let (_, path, cleanUp) = try scanned()
        defer { cleanUp() }
        let included = try CatalogCLI.run(["export", path, "--tsv", "--columns", "name", "-i", "--include", "ÉCLAIR.*", "--include", "ångström*"])
        #expect(included.status == 0, "\(included.stderr)")
        #expect(included.stdout.contains("Éclair.txt") && included.stdout.contains("ÅNGSTRÖM.TXT"), "\(included.stdout)")
        #expect(!included.stdout.contains("other.txt"))
        let excluded = try CatalogCLI.run(["export", path, "--tsv", "--columns", "name", "-i", "--exclude", "éCLAIR.TXT"])
        #expect(excluded.status == 0)
        #expect(!excluded.stdout.contains("Éclair.txt") && excluded.stdout.contains("other.txt"), "\(excluded.stdout)")
    }
}
