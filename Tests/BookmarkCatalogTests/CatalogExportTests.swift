// SPDX-License-Identifier: Apache-2.0
@testable import BookmarkCatalog
import Foundation
import Glibc
import Testing
import VolumeFixtures

/// The exports of a real scanned tree with hostile names: every format's escaping read back with
/// a parser of that format, columns, filters and their precedence.
@Suite("Catalog exports: formats, escaping, columns, filters")
struct CatalogExportTests {
    // MARK: CSV

    @Test("CSV is RFC 4180: CRLF records, quoted fields read back exactly by a strict parser")
    func csv() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let columns: [CatalogColumn] = [.path, .name, .kind, .size, .linkTarget, .modified]
        let bytes = CatalogExporter.export(fixture.snapshots, format: .csv, options: .init(columns: columns))
        let records = try #require(DelimitedText.parseCSV(bytes), "a strict RFC 4180 parser reads the export")
        #expect(records.first == columns.map(\.rawValue))
        let rows = Array(records.dropFirst())
        #expect(rows.count == fixture.entries.count)
        #expect(rows.allSatisfy { $0.count == columns.count })
        // Row for row, in the snapshots' order: the path as text, `\xNN` for bytes that are not UTF-8.
        for (row, entry) in zip(rows, fixture.entries) {
            #expect(row[0] == DisplayForm.text(entry.path))
            #expect(row[1] == DisplayForm.text(entry.name))
            #expect(row[3] == String(entry.size))
        }
        let byName = Dictionary(rows.map { ($0[1], $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName[HostileName.newline]?[0] == fixture.root + "/hostile/" + HostileName.newline, "LF kept inside quotes")
        #expect(byName[HostileName.quotes] != nil && byName[HostileName.comma] != nil)
        #expect(byName["caf\\xE9.txt"]?[0] == fixture.root + "/hostile/caf\\xE9.txt")
        #expect(byName["link-to-script"]?[4] == HostileName.linkTarget)
        #expect(byName["link-to-script"]?[2] == "symlink")
        #expect(byName["a-small.txt"]?[5] == "2021-03-04T05:06:07.5Z")
        #expect(byName["b-large.bin"]?[5] == "2020-01-01T00:00:00Z")
        #expect(byName["b-large.bin"]?[3] == "5000")
        #expect(rows.contains { $0[0] == fixture.root + "/<script>alert(1)</script>.txt" })
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"\"\"quotes\"\" & 'apostrophes'.txt\""), "inner quotes doubled, the field quoted")
        #expect(text.contains(",\"comma, separated.txt\","))
        #expect(text.contains("," + HostileName.tab + ","), "a tab needs no quotes in CSV")
    }

    // MARK: TSV

    @Test("TSV: one line per entry, tab, newline, CR and backslash escaped, bytes that are not UTF-8 as \\xNN, lossless")
    func tsv() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let columns: [CatalogColumn] = [.path, .name, .linkTarget, .size]
        let bytes = CatalogExporter.export(fixture.snapshots, format: .tsv, options: .init(columns: columns))
        #expect(bytes.last == 0x0A)
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == fixture.entries.count + 1)
        #expect(String(decoding: lines.first ?? [], as: UTF8.self) == "path\tname\tlinkTarget\tsize")
        for (line, entry) in zip(lines.dropFirst(), fixture.entries) {
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false)
            try #require(fields.count == columns.count, "exactly three tabs in \(String(decoding: line, as: UTF8.self))")
            #expect(DelimitedText.unescapeTSV(fields[0]) == entry.path, "the path's exact bytes come back")
            #expect(DelimitedText.unescapeTSV(fields[1]) == entry.name)
            #expect(DelimitedText.unescapeTSV(fields[2]) == (entry.linkTarget ?? []))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\tline1\\nline2.txt\t"))
        #expect(text.contains("\ttab\\there.txt\t"))
        #expect(text.contains("\tback\\\\slash \\\\x41.txt\t"), "a literal backslash is doubled, so \\x41 is not a byte")
        #expect(text.contains("\tcaf\\xE9.txt\t"))
    }

    // MARK: JSON

    @Test("JSON: one object; volumes, roots, every entry with every column; a base64 twin only for names that are not UTF-8")
    func json() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let bytes = CatalogExporter.export(fixture.snapshots, format: .json, options: .init(columns: CatalogColumn.allCases))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["columns"] as? [String] == CatalogColumn.allCases.map(\.rawValue))
        let volumes = try #require(object["volumes"] as? [[String: Any]])
        #expect(volumes.count == 1, "both roots are on one volume")
        let volume = try #require(volumes.first)
        #expect(volume["fsType"] as? String == fixture.snapshots[0].volume.fsType)
        #expect(volume.keys.contains("uuid") && volume.keys.contains("label"), "every key present, null where unknown")
        let roots = try #require(object["roots"] as? [[String: Any]])
        #expect(roots.map { $0["path"] as? String } == [fixture.root, fixture.second])
        #expect(roots.map { $0["entries"] as? Int } == fixture.snapshots.map(\.entries.count))
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.count == fixture.entries.count)
        for entry in entries {
            #expect(Set(CatalogColumn.allCases.map(\.rawValue)).isSubset(of: entry.keys), "every column, null where empty")
            #expect(entry["volume"] as? Int64 == volume["id"] as? Int64)
        }
        #expect(entries.last?["root"] as? Int == 1)
        let latin1 = try #require(entries.first { ($0["name"] as? String) == "caf\u{FFFD}.txt" })
        #expect((latin1["nameBase64"] as? String).flatMap { Data(base64Encoded: $0) } == Data(HostileName.latin1))
        let latin1Path = try #require((latin1["pathBase64"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect([UInt8](latin1Path) == Array((fixture.root + "/hostile/").utf8) + HostileName.latin1)
        let inside = try #require(entries.first { ($0["name"] as? String) == "inside.txt" })
        #expect(inside["nameBase64"] == nil, "a UTF-8 name has no twin")
        #expect(inside["pathBase64"] != nil, "its folder's name is not UTF-8")
        #expect(entries.contains { ($0["name"] as? String) == HostileName.newline })
        #expect(entries.contains { ($0["name"] as? String) == HostileName.separator })
        let link = try #require(entries.first { ($0["name"] as? String) == "link-to-script" })
        #expect(link["linkTarget"] as? String == HostileName.linkTarget)
        let folder = try #require(entries.first { ($0["name"] as? String) == "docs" })
        #expect(folder["linkTarget"] is NSNull && folder["sha256"] is NSNull)
        #expect(folder["kind"] as? String == "directory")
        let small = try #require(entries.first { ($0["name"] as? String) == "a-small.txt" })
        #expect(small["size"] as? Int == 10 && small["modified"] as? String == "2021-03-04T05:06:07.5Z")
        #expect(small["mode"] as? String == "100644")
    }

    // MARK: Markdown

    @Test("Markdown: a table per root; | < & * _ [ ` escaped, line breaks and invisible characters shown as escapes")
    func markdown() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let columns: [CatalogColumn] = [.path, .name, .size]
        let bytes = CatalogExporter.export(fixture.snapshots, format: .markdown, options: .init(columns: columns))
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.hasPrefix("## ") }.count == 2, "one section per root")
        #expect(lines.filter { $0 == "| path | name | size |" }.count == 2)
        #expect(lines.filter { $0 == "| --- | --- | ---: |" }.count == 2)
        let rows = lines.filter { $0.hasPrefix("| /") }
        #expect(rows.count == fixture.entries.count, "one line per entry: no name breaks a row")
        for row in rows {
            #expect(MarkdownText.unescapedPipes(row) == columns.count + 1, "\(row)")
            #expect(!MarkdownText.hasUnescaped("<", in: row) && !MarkdownText.hasUnescaped("&", in: row), "\(row)")
            #expect(!row.unicodeScalars.contains { [0x2028, 0x202E, 0x09].contains($0.value) })
        }
        #expect(text.contains(#"| pipe \| and \*stars\* \[link\](x).md |"#))
        #expect(text.contains(#"| line1\\nline2.txt |"#), "a newline shows as \\n, its backslash escaped")
        #expect(text.contains(#"| \<img src=x onerror=document.title='pwned'\> |"#))
        #expect(text.contains(#"| "quotes" \& 'apostrophes'.txt |"#))
        #expect(text.contains(#"| bidi-\\u{202E}gpj.exe |"#))
        #expect(text.contains(#"| caf\\xE9.txt |"#))
        #expect(text.contains(#"| back\\slash \\x41.txt |"#))
    }

    // MARK: Columns and filters

    @Test("columns come in the order chosen; names parse in any case and with - or _")
    func columns() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let csv = CatalogExporter.export(fixture.snapshots, format: .csv, options: .init(columns: [.size, .path]))
        #expect(DelimitedText.parseCSV(csv)?.first == ["size", "path"])
        let defaults = CatalogExporter.export(fixture.snapshots, format: .csv)
        #expect(DelimitedText.parseCSV(defaults)?.first == ["path", "kind", "size", "modified", "volume"])
        #expect(CatalogColumn(name: "link-target") == .linkTarget)
        #expect(CatalogColumn(name: "FIRST_SEEN") == .firstSeen)
        #expect(CatalogColumn(name: "sha256") == .sha256)
        #expect(CatalogColumn(name: "bogus") == nil)
    }

    @Test("include and exclude: names or paths, a folder brings its contents, exclusion wins, case folding on request")
    func filters() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        func paths(_ options: CatalogExportOptions) -> [String] {
            let bytes = CatalogExporter.export(fixture.snapshots, format: .tsv, options: options)
            return bytes.split(separator: 0x0A).dropFirst().map { String(decoding: DelimitedText.unescapeTSV($0), as: UTF8.self) }
        }
        let texts = paths(.init(columns: [.path], include: ["*.txt"]))
        let expectedTexts = fixture.entries.filter { $0.name.count >= 4 && $0.name.suffix(4).elementsEqual(".txt".utf8) }
            .map { String(decoding: $0.path, as: UTF8.self) }
        #expect(texts == expectedTexts)
        #expect(texts.count == 11)

        let withoutHostile = paths(.init(columns: [.path], exclude: ["hostile"]))
        #expect(withoutHostile.count == fixture.entries.count - 12, "the folder and its 11 entries")
        #expect(!withoutHostile.contains { $0.contains("/hostile") })

        let both = paths(.init(columns: [.path], include: ["*.txt"], exclude: ["hostile"]))
        #expect(both == expectedTexts.filter { !$0.contains("/hostile/") }, "exclusion wins over inclusion")

        let reports = paths(.init(columns: [.path], include: [CatalogGlob(fixture.root + "/docs/reports")]))
        #expect(reports == ["reports", "reports/2024", "reports/2024/summary.csv"].map { fixture.root + "/docs/" + $0 })
        let docsChildren = paths(.init(columns: [.path], include: [CatalogGlob(fixture.root + "/docs/*")]))
        #expect(docsChildren.count == 6, "* stays in one component, and a matching folder brings its contents")
        #expect(paths(.init(columns: [.path], include: ["A-SMALL.TXT"])).isEmpty)
        #expect(paths(.init(columns: [.path], include: ["A-SMALL.TXT"], ignoresCase: true)) == [fixture.root + "/docs/a-small.txt"])
        #expect(paths(.init(columns: [.path], include: [CatalogGlob(bytes: HostileName.badFolder)])).count == 2)

        // The page keeps the folders above what it shows, so its tree stays whole.
        let page = CatalogExporter.export(fixture.snapshots, format: .html, options: .init(include: ["*.csv"]))
        let data = try #require(try PageText.data(page))
        let roots = try #require(data["roots"] as? [[String: Any]])
        #expect(roots[0]["names"] as? [String] == [fixture.root, "docs", "reports", "2024", "summary.csv"])
        #expect(roots[0]["parents"] as? [Int] == [-1, 0, 1, 2, 3])
        #expect(roots[1]["names"] as? [String] == [fixture.second], "a root with nothing chosen is shown empty")
    }

    // MARK: HTML, read as text

    @Test("HTML: one file, a CSP with the hashes of its own script and style, data only as escaped JSON")
    func htmlStructure() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let page = CatalogExporter.export(fixture.snapshots, format: .html, options: .init(title: "Export <test> & \"more\""))
        let text = String(decoding: page, as: UTF8.self)
        #expect(text.hasPrefix("<!DOCTYPE html>"))
        #expect(text.contains("<title>Export &lt;test&gt; &amp; &quot;more&quot;</title>"))
        #expect(PageText.count("<script", in: text) == 2, "the data block and the page's script, nothing from a name")
        #expect(PageText.count("</script", in: text) == 2)
        #expect(!text.lowercased().contains("<img"), "no markup from a name")
        #expect(!text.contains("<!--"))
        #expect(!text.contains("http://") && !text.contains("https://"), "nothing to fetch")

        let policy = try #require(PageText.contentSecurityPolicy(text))
        let script = try #require(PageText.element("script", in: text, after: "</script>"))
        let style = try #require(PageText.element("style", in: text))
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("script-src 'sha256-\(try Digest.sha256Base64(script))'"), "\(policy)")
        #expect(policy.contains("style-src 'sha256-\(try Digest.sha256Base64(style))'"))
        #expect(policy.contains("require-trusted-types-for 'script'"))
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('on"] {
            #expect(!script.contains(sink), "the script never uses \(sink)")
        }

        let data = try #require(try PageText.data(page))
        #expect(data["title"] as? String == "Export <test> & \"more\"")
        let roots = try #require(data["roots"] as? [[String: Any]])
        let names = try #require(roots.first?["names"] as? [String])
        for shown in [
            HostileName.image, HostileName.quotes, "line1\\nline2.txt", "caf\\xE9.txt", "bidi-\\u{202E}gpj.exe",
            "para\\u{2028}sep.txt", "bad\\xFFdir", HostileName.scriptFolder, HostileName.scriptFile, HostileName.backslash,
        ] {
            #expect(names.contains(shown), "\(shown) is in the page as text")
        }
        let links = try #require(roots.first?["links"] as? [[Any]])
        #expect(links.contains { $0.last as? String == HostileName.linkTarget })
        let volume = try #require(roots.first?["volume"] as? [String: Any])
        #expect(volume["fsType"] as? String == fixture.snapshots[0].volume.fsType)
        let block = try #require(PageText.element("script", in: text))
        #expect(!block.contains("<") && !block.contains(">") && !block.contains("&"), "escaped as \\u003c, \\u003e, \\u0026")
        #expect(!block.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 })
    }

    @Test("HTML from snapshots made in memory: </script> and <!-- in names and paths stay inside the JSON")
    func htmlEndTagInNames() throws {
        let root = Array("/media/x/</script><script>document.title='p'</script>".utf8)
        let snapshot = CatalogRootSnapshot(
            volume: SyntheticCatalog.volume, rootPath: root, scannedAt: Date(timeIntervalSince1970: 0),
            entries: [
                SyntheticCatalog.entry(id: 1, parent: nil, name: Array("x".utf8), path: root, kind: .directory),
                SyntheticCatalog.entry(
                    id: 2, parent: 1, name: Array("</SCRIPT><!--<script>".utf8) + [0xC0, 0xAF], path: root + Array("/a".utf8), kind: .file),
            ])
        let page = CatalogExporter.export([snapshot], format: .html)
        let text = String(decoding: page, as: UTF8.self)
        #expect(PageText.count("</script", in: text) == 2)
        #expect(!text.contains("<!--"))
        let data = try #require(try PageText.data(page))
        let names = (data["roots"] as? [[String: Any]])?.first?["names"] as? [String]
        #expect(names == [String(decoding: root, as: UTF8.self), "</SCRIPT><!--<script>\\xC0\\xAF"], "an overlong / is two bad bytes")
    }

    // MARK: Odd input

    @Test("no format traps on odd snapshots: extreme times and sizes, missing or later parents, repeated ids, empty names")
    func oddSnapshots() throws {
        var entries = [
            SyntheticCatalog.entry(id: 1, parent: nil, name: [], path: [], kind: .directory, modified: .min),
            SyntheticCatalog.entry(id: 2, parent: 99, name: Array("orphan".utf8), path: Array("orphan".utf8), kind: .file, size: .max, modified: .max),
            SyntheticCatalog.entry(id: 3, parent: 4, name: Array("before its parent".utf8), path: [0xFF], kind: .symlink, linkTarget: []),
            SyntheticCatalog.entry(id: 4, parent: 1, name: [0xF4, 0x90, 0x80, 0x80], path: [0xED, 0xA0, 0x80], kind: .other),
            SyntheticCatalog.entry(id: 4, parent: 4, name: Array("same id, itself as parent".utf8), path: [0x2F], kind: .directory),
        ]
        entries[0].firstSeen = .distantPast
        entries[0].lastSeen = Date(timeIntervalSince1970: .infinity)
        entries[1].bornNanoseconds = .min
        let snapshot = CatalogRootSnapshot(
            volume: SyntheticCatalog.volume, rootPath: [], scannedAt: Date(timeIntervalSince1970: .nan), entries: entries)
        for format in CatalogExportFormat.allCases {
            let bytes = CatalogExporter.export([snapshot, snapshot], format: format, options: .init(columns: CatalogColumn.allCases))
            #expect(!bytes.isEmpty, "\(format)")
        }
        let json = CatalogExporter.export([snapshot], format: .json, options: .init(columns: CatalogColumn.allCases))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let rows = try #require(object["entries"] as? [[String: Any]])
        #expect(rows.count == 5)
        // Foundation's distantPast is 0001-01-01 in the Julian calendar; ISO 8601 counts in the
        // proleptic Gregorian one.
        #expect(rows[0]["firstSeen"] as? String == "0000-12-30T00:00:00Z")
        #expect(rows[0]["lastSeen"] as? String == "", "a time that is no time is empty")
        #expect(DelimitedText.parseCSV(CatalogExporter.export([snapshot], format: .csv))?.count == 6)
        let page = CatalogExporter.export([snapshot], format: .html)
        let parents = ((try PageText.data(page))?["roots"] as? [[String: Any]])?.first?["parents"] as? [Int]
        #expect(parents == [-1, -1, -1, 0, 3], "an unknown or later parent makes a top-level entry; ids repeat harmlessly")
    }

    @Test("ISO 8601 times: whole seconds, trimmed fractions, before 1970, the extremes of Int64")
    func times() {
        #expect(ExportText.iso8601(nanoseconds: 0) == "1970-01-01T00:00:00Z")
        #expect(ExportText.iso8601(nanoseconds: -1) == "1969-12-31T23:59:59.999999999Z")
        #expect(ExportText.iso8601(nanoseconds: 1_700_000_000_123_000_000) == "2023-11-14T22:13:20.123Z")
        #expect(ExportText.iso8601(nanoseconds: 951_782_400_000_000_000) == "2000-02-29T00:00:00Z")
        #expect(ExportText.iso8601(nanoseconds: .max) == "2262-04-11T23:47:16.854775807Z")
        #expect(ExportText.iso8601(nanoseconds: .min) == "1677-09-21T00:12:43.145224192Z")
        #expect(ExportText.iso8601(Date(timeIntervalSince1970: 1.25)) == "1970-01-01T00:00:01.25Z")
        #expect(ExportText.iso8601(.distantFuture) == "4001-01-01T00:00:00Z")
    }

    @Test("display text: \\xNN for bytes that are not UTF-8 (overlong, surrogate, truncated), controls and bidi made visible")
    func displayText() {
        #expect(ExportText.text([0x61, 0xC0, 0xAF, 0x62]) == "a\\xC0\\xAFb")
        #expect(ExportText.text([0xED, 0xA0, 0x80]) == "\\xED\\xA0\\x80")
        #expect(ExportText.text([0xE2, 0x82]) == "\\xE2\\x82")
        #expect(ExportText.text(Array("é€😀".utf8)) == "é€😀")
        #expect(ExportText.visible(Array("a\u{1B}[31m\tb\r\u{7F}".utf8)) == "a\\x1B[31m\\tb\\r\\x7F")
        #expect(ExportText.visible(Array("x\u{2066}y\u{200F}".utf8)) == "x\\u{2066}y\\u{200F}")
    }
}

// MARK: - Scale

@Suite("Catalog exports at 100,000 entries")
struct CatalogExportScaleTests {
    @Test("every format of 100,000 files: complete, read back, times printed (linear: 10,000 files too)")
    func everyFormat() throws {
        let big = SyntheticCatalog.big()
        let small = SyntheticCatalog.big(perFolder: 10)
        let clock = ContinuousClock()
        var report: [String] = []
        for format in CatalogExportFormat.allCases {
            // The default columns: every column of every entry costs a debug build ~20 s, and the
            // columns' values are checked on the real tree above.
            let options = CatalogExportOptions()
            var bytes: [UInt8] = []
            let bigTime = clock.measure { bytes = CatalogExporter.export([big], format: format, options: options) }
            let smallTime = clock.measure { _ = CatalogExporter.export([small], format: format, options: options) }
            report.append("\(format) \(bigTime) for \(big.entries.count) entries (\(bytes.count / 1024) KiB), \(smallTime) for \(small.entries.count)")
            switch format {
            case .csv:
                #expect(DelimitedText.parseCSV(bytes)?.count == big.entries.count + 1)
            case .tsv:
                #expect(bytes.filter { $0 == 0x0A }.count == big.entries.count + 1)
            case .json:
                let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
                #expect((object?["entries"] as? [Any])?.count == big.entries.count)
            case .markdown:
                #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n| /media/big/").count - 1 == big.entries.count)
            case .html:
                let names = ((try PageText.data(bytes))?["roots"] as? [[String: Any]])?.first?["names"] as? [String]
                #expect(names?.count == big.entries.count)
            }
        }
        #if DEBUG
            let build = "debug build"
        #else
            let build = "optimised build"
        #endif
        print("catalog export at scale (\(build)): " + report.joined(separator: "; "))
    }
}

// MARK: - The command

/// `bookmark catalog export`, once the command is registered in the `catalog` group.
enum ExportCommand {
    static let unregisteredReason: String? = {
        guard BookmarkTool.path != nil else { return "the bookmark executable is not built" }
        guard let help = try? BookmarkTool.run(["catalog", "export", "--help"]), help.status == 0,
            help.stdout.contains("--markdown")
        else { return "`bookmark catalog export` is not registered yet (CatalogExport.self in the catalog group)" }
        return nil
    }()

    /// The process's umask (new files are 0666 less it).
    static var umask: UInt32 {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") } ?? "Umask: 022"
        return UInt32(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) ?? 0o022
    }

    static func mode(_ path: String) -> UInt32 {
        var status = stat()
        return lstat(path, &status) == 0 ? UInt32(status.st_mode) & 0o7777 : 0
    }
}

@Suite(
    "bookmark catalog export", .serialized,
    .requires(requiredInCI: true) { ExportCommand.unregisteredReason })
struct CatalogExportCommandTests {
    @Test("writes FILE atomically with what the library exports; '-' and no FILE write stdout")
    func writesFile() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let snapshots = try Catalog(path: fixture.catalogPath, create: false).snapshots()
        let output = fixture.folder + "/out.csv"
        let result = try BookmarkTool.run(["catalog", "export", fixture.catalogPath, "--csv", output, "--columns", "path,size"])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(written == CatalogExporter.export(snapshots, format: .csv, options: .init(columns: [.path, .size])))
        #expect(ExportCommand.mode(output) == 0o666 & ~ExportCommand.umask, "a new file: 0666 less the umask")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.folder).filter { $0 != "out.csv" && $0.contains("out.csv") }
        #expect(leftovers.isEmpty, "no temporary file left beside it: \(leftovers)")

        // Replacing keeps the old file's permissions, and the contents are new.
        #expect(chmod(output, 0o600) == 0)
        let again = try BookmarkTool.run(["catalog", "export", fixture.catalogPath, "--json", output])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(ExportCommand.mode(output) == 0o600)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))) == CatalogExporter.export(snapshots, format: .json))

        for arguments in [["--markdown", "-"], ["--markdown"]] {
            let printed = try BookmarkTool.run(["catalog", "export", fixture.catalogPath] + arguments + ["--title", "T"])
            #expect(printed.status == 0)
            #expect([UInt8](printed.stdoutData) == CatalogExporter.export(snapshots, format: .markdown, options: .init(title: "T")))
        }
    }

    @Test("--include, --exclude (bytes that are not UTF-8 too), -i and --columns reach the library unchanged")
    func filters() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let snapshots = try Catalog(path: fixture.catalogPath, create: false).snapshots()
        let result = try BookmarkTool.run(bytes: [
            "catalog", "export", fixture.catalogPath, "--tsv", "--columns", "name, link-target,size", "--include", "*.TXT", "-i",
            "--exclude", "hostile",
        ].map { Array($0.utf8) } + [Array("--exclude".utf8), HostileName.badFolder])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = CatalogExporter.export(
            snapshots, format: .tsv,
            options: .init(
                columns: [.name, .linkTarget, .size], include: ["*.TXT"], exclude: ["hostile", CatalogGlob(bytes: HostileName.badFolder)],
                ignoresCase: true))
        #expect([UInt8](result.stdoutData) == expected)
        #expect(String(decoding: expected, as: UTF8.self).split(separator: "\n").count == 4, "header, a-small, the script file, todo")
    }

    @Test("the HTML page by the command is the library's page, written to a name that is not UTF-8")
    func html() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let output = Array((fixture.folder + "/page-").utf8) + [0xFE] + Array(".html".utf8)
        let result = try BookmarkTool.run(bytes: [Array("catalog".utf8), Array("export".utf8), Array(fixture.catalogPath.utf8), Array("--html".utf8), output])
        #expect(result.status == 0, "\(result.stderr)")
        let fd = open(ByteFiles.cPath(output), O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0, "the file has the exact name")
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let written = [UInt8](try handle.readToEnd() ?? Data())
        let snapshots = try Catalog(path: fixture.catalogPath, create: false).snapshots()
        #expect(written == CatalogExporter.export(snapshots, format: .html))
    }

    @Test("exit 66 for a missing catalog or a file that is not one; 64 without a format, with two, or an unknown column")
    func failures() throws {
        let fixture = try ExportFixture.make()
        defer { fixture.remove() }
        let missing = try BookmarkTool.run(["catalog", "export", fixture.folder + "/nothing.catalog", "--csv"])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("nothing.catalog") && missing.stderr.hasPrefix("bookmark: "))
        #expect(!FileManager.default.fileExists(atPath: fixture.folder + "/nothing.catalog"), "nothing is created")
        // Missing and not a .catalog name: meant as FILE (64, -o FILE), not read as a catalog.
        let meantAsFile = try BookmarkTool.run(["catalog", "export", fixture.folder + "/nothing.sqlite", "--csv"])
        #expect(meantAsFile.status == 64, "\(meantAsFile.stderr)")
        #expect(meantAsFile.stderr.contains("nothing.sqlite") && meantAsFile.stderr.contains("-o"))
        #expect(!FileManager.default.fileExists(atPath: fixture.folder + "/nothing.sqlite"), "nothing is created")
        let notCatalog = fixture.folder + "/notes.txt"
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: notCatalog))
        #expect(try BookmarkTool.run(["catalog", "export", notCatalog, "--csv"]).status == 66)
        #expect(try BookmarkTool.run(["catalog", "export", fixture.catalogPath]).status == 64)
        #expect(try BookmarkTool.run(["catalog", "export", fixture.catalogPath, "--csv", "--html"]).status == 64)
        let badColumn = try BookmarkTool.run(["catalog", "export", fixture.catalogPath, "--csv", "--columns", "path,colour"])
        #expect(badColumn.status == 64)
        #expect(badColumn.stderr.contains("colour"))
        let intoFolder = try BookmarkTool.run(["catalog", "export", fixture.catalogPath, "--csv", fixture.folder])
        #expect(intoFolder.status != 0, "a folder at FILE is refused, not replaced")
    }
}

// MARK: - Reading the exports back

/// Parsers for the delimited formats, written for these tests from RFC 4180 and the TSV rules.
enum DelimitedText {
    /// The records of an RFC 4180 file, or `nil` where it breaks the grammar: a bare CR or LF
    /// outside quotes, a quote inside an unquoted field, text after a closing quote, an open quote
    /// at the end, or a last record without its CRLF.
    static func parseCSV(_ bytes: [UInt8]) -> [[String]]? {
        var records: [[String]] = []
        var record: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var afterQuote = false
        var index = 0
        func endField() {
            record.append(String(decoding: field, as: UTF8.self))
            field = []
            afterQuote = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inQuotes {
                if byte == 0x22 {
                    if index < bytes.count && bytes[index] == 0x22 {
                        field.append(0x22)
                        index += 1
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case 0x2C:
                endField()
            case 0x0D:
                guard index < bytes.count, bytes[index] == 0x0A else { return nil }
                index += 1
                endField()
                records.append(record)
                record = []
            case 0x0A:
                return nil
            case 0x22:
                guard field.isEmpty, !afterQuote else { return nil }
                inQuotes = true
            default:
                guard !afterQuote else { return nil }
                field.append(byte)
            }
        }
        return inQuotes || !record.isEmpty || !field.isEmpty ? nil : records
    }

    /// A TSV field's exact bytes: `\\`, `\t`, `\n`, `\r` and `\xNN` undone.
    static func unescapeTSV(_ field: some Collection<UInt8>) -> [UInt8] {
        let field = Array(field)
        var result: [UInt8] = []
        var index = 0
        while index < field.count {
            let byte = field[index]
            guard byte == 0x5C, index + 1 < field.count else {
                result.append(byte)
                index += 1
                continue
            }
            switch field[index + 1] {
            case 0x5C: result.append(0x5C)
            case 0x74: result.append(0x09)
            case 0x6E: result.append(0x0A)
            case 0x72: result.append(0x0D)
            case 0x78 where index + 3 < field.count:
                let hex = String(decoding: field[(index + 2)...(index + 3)], as: UTF8.self)
                result.append(UInt8(hex, radix: 16) ?? 0)
                index += 4
                continue
            default: result.append(contentsOf: field[index...(index + 1)])
            }
            index += 2
        }
        return result
    }
}

/// What a person sees for a name: UTF-8, and `\xNN` for each byte that is not part of it.
enum DisplayForm {
    static func text(_ bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var result = ""
        var index = 0
        while index < bytes.count {
            var matched = false
            for length in [4, 3, 2, 1] where index + length <= bytes.count {
                if let valid = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                    result += valid
                    index += length
                    matched = true
                    break
                }
            }
            if !matched {
                result += "\\x" + String(bytes[index], radix: 16, uppercase: true)
                index += 1
            }
        }
        return result
    }
}

/// Markdown table rows, read back.
enum MarkdownText {
    /// The `|` that separate cells (a `\|` is text).
    static func unescapedPipes(_ row: Substring) -> Int {
        var count = 0
        var escaped = false
        for character in row {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                count += 1
            }
        }
        return count
    }

    static func hasUnescaped(_ target: Character, in row: Substring) -> Bool {
        var escaped = false
        for character in row {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == target {
                return true
            }
        }
        return false
    }
}

/// The HTML page, read as text.
enum PageText {
    static func count(_ needle: String, in text: String) -> Int {
        text.lowercased().components(separatedBy: needle.lowercased()).count - 1
    }

    /// The text of the first `<tag …>` element (after `marker`, when given).
    static func element(_ tag: String, in text: String, after marker: String? = nil) -> String? {
        var rest = Substring(text)
        if let marker, let found = rest.range(of: marker) { rest = rest[found.upperBound...] }
        guard let open = rest.range(of: "<" + tag), let openEnd = rest[open.upperBound...].range(of: ">"),
            let close = rest[openEnd.upperBound...].range(of: "</" + tag + ">")
        else { return nil }
        return String(rest[openEnd.upperBound..<close.lowerBound])
    }

    static func contentSecurityPolicy(_ text: String) -> String? {
        guard let start = text.range(of: "http-equiv=\"Content-Security-Policy\" content=\""),
            let end = text[start.upperBound...].range(of: "\"")
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// The page's embedded catalog data, parsed.
    static func data(_ page: [UInt8]) throws -> [String: Any]? {
        guard let block = element("script", in: String(decoding: page, as: UTF8.self)) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any]
    }
}

/// SHA-256 through coreutils (the test target does not link swift-crypto).
enum Digest {
    static func sha256Base64(_ text: String) throws -> String {
        let result = try Shell.run(["sha256sum"], input: Data(text.utf8))
        let hex = Array(result.stdout.prefix(64).utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < hex.count {
            bytes.append(UInt8(String(decoding: hex[index...(index + 1)], as: UTF8.self), radix: 16) ?? 0)
            index += 2
        }
        return Data(bytes).base64EncodedString()
    }
}

// MARK: - Fixtures

/// Names an export must show as text and never interpret.
enum HostileName {
    static let newline = "line1\nline2.txt"
    /// `café.txt` in Latin-1: not UTF-8.
    static let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
    /// A folder whose name is not UTF-8.
    static let badFolder: [UInt8] = Array("bad".utf8) + [0xFF] + Array("dir".utf8)
    static let image = "<img src=x onerror=document.title='pwned'>"
    static let quotes = "\"quotes\" & 'apostrophes'.txt"
    static let comma = "comma, separated.txt"
    static let tab = "tab\there.txt"
    static let markdown = "pipe | and *stars* [link](x).md"
    /// A backslash, and the characters `\x41` that the `\xNN` display form could be taken for.
    static let backslash = #"back\slash \x41.txt"#
    /// A right-to-left override: shown raw, `gpj.exe` would read `exe.jpg`.
    static let bidi = "bidi-\u{202E}gpj.exe"
    static let separator = "para\u{2028}sep.txt"
    /// A name cannot hold `/`, so `<script>alert(1)</script>.txt` is a path: this folder, then
    /// ``scriptFile`` in it.
    static let scriptFolder = "<script>alert(1)<"
    static let scriptFile = "script>.txt"
    /// A link target can hold `/`: it carries the `</script>` that would end a data block.
    static let linkTarget = "</script><script>document.title='pwned-link'</script>"
}

/// A real tree with ordinary and hostile names, scanned into a catalog in a temporary folder.
///
/// ```
/// tree/docs/{a-small.txt 10 B 2021, b-large.bin 5000 B 2020, c-medium.dat 500 B 2023}
/// tree/docs/reports/2024/summary.csv
/// tree/hostile/… (every HostileName), link-to-script -> HostileName.linkTarget
/// tree/bad\xFFdir/inside.txt
/// tree/<script>alert(1)</script>.txt
/// second/notes/todo.txt            (a second root)
/// ```
struct ExportFixture {
    /// The temporary folder holding the second root and the catalog (and the first root, unless
    /// it was made elsewhere).
    let folder: String
    /// The first root's path.
    let root: String
    /// The second root's path.
    var second: String { folder + "/second" }
    var catalogPath: String { folder + "/catalog.sqlite" }
    let snapshots: [CatalogRootSnapshot]

    /// Every entry of both roots, in export order.
    var entries: [CatalogEntry] { snapshots.flatMap(\.entries) }

    /// 2021-03-04T05:06:07.5Z, 2020-01-01T00:00:00Z, 2023-06-30T12:00:00Z.
    static let smallModified: (Int64, Int) = (1_614_834_367, 500_000_000)
    static let largeModified: (Int64, Int) = (1_577_836_800, 0)
    static let mediumModified: (Int64, Int) = (1_688_126_400, 0)

    /// Makes the trees and scans them. `treeParent` puts the first root in another folder (on
    /// another volume), so that the catalog has two volumes.
    static func make(treeParent: String? = nil) throws -> ExportFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-export-\(UUID().uuidString)").path
        let rootPath = (treeParent ?? folder) + "/tree"
        let tree = Array(rootPath.utf8)
        func at(_ relative: String) -> [UInt8] { tree + [0x2F] + Array(relative.utf8) }
        func at(_ relative: [UInt8]) -> [UInt8] { tree + [0x2F] + relative }

        try ByteFiles.directory(Array(folder.utf8))
        try ByteFiles.directory(tree)
        try ByteFiles.directory(at("docs"))
        try ByteFiles.file(at("docs/a-small.txt"), size: 10, modified: smallModified)
        try ByteFiles.file(at("docs/b-large.bin"), size: 5000, modified: largeModified)
        try ByteFiles.file(at("docs/c-medium.dat"), size: 500, modified: mediumModified)
        try ByteFiles.directory(at("docs/reports"))
        try ByteFiles.directory(at("docs/reports/2024"))
        try ByteFiles.file(at("docs/reports/2024/summary.csv"), size: 100, modified: (1_704_067_200, 0))

        try ByteFiles.directory(at("hostile"))
        let hostile: [[UInt8]] = [
            HostileName.newline, HostileName.image, HostileName.quotes, HostileName.comma, HostileName.tab,
            HostileName.markdown, HostileName.backslash, HostileName.bidi, HostileName.separator,
        ].map { Array($0.utf8) } + [HostileName.latin1]
        for (index, name) in hostile.enumerated() {
            try ByteFiles.file(at(Array("hostile/".utf8) + name), size: index + 1, modified: (1_600_000_000 + Int64(index) * 86_400, 0))
        }
        try ByteFiles.symlink(at("hostile/link-to-script"), target: Array(HostileName.linkTarget.utf8))

        try ByteFiles.directory(at(HostileName.badFolder))
        try ByteFiles.file(at(HostileName.badFolder + Array("/inside.txt".utf8)), size: 7, modified: (1_650_000_000, 0))
        try ByteFiles.directory(at(HostileName.scriptFolder))
        try ByteFiles.file(at(HostileName.scriptFolder + "/" + HostileName.scriptFile), size: 8, modified: (1_650_000_000, 0))

        let second = Array((folder + "/second").utf8)
        try ByteFiles.directory(second)
        try ByteFiles.directory(second + Array("/notes".utf8))
        try ByteFiles.file(second + Array("/notes/todo.txt".utf8), size: 9, modified: (1_700_000_000, 0))

        let catalog = try Catalog(path: folder + "/catalog.sqlite")
        try catalog.scan(root: rootPath)
        try catalog.scan(root: folder + "/second")
        return ExportFixture(folder: folder, root: rootPath, snapshots: try catalog.snapshots())
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    /// The entry at `relative` (to the first root), by its exact path bytes.
    func entry(_ relative: [UInt8]) -> CatalogEntry? {
        let path = Array(root.utf8) + [0x2F] + relative
        return entries.first { $0.path == path }
    }

    func entry(_ relative: String) -> CatalogEntry? { entry(Array(relative.utf8)) }
}

/// Files, folders and links made by exact byte paths (names that are not UTF-8), with Glibc.
enum ByteFiles {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var path: [UInt8]
        var code: Int32
        var description: String { "\(call)(\(String(decoding: path, as: UTF8.self))): errno \(code)" }
    }

    /// The path as a C string (Swift passes a `[CChar]` to a C `const char *` parameter).
    static func cPath(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    static func directory(_ path: [UInt8]) throws {
        guard mkdir(cPath(path), 0o755) == 0 else { throw Failure(call: "mkdir", path: path, code: errno) }
    }

    /// A regular file of `size` bytes, modified at `modified` (seconds, nanoseconds since 1970).
    static func file(_ path: [UInt8], size: Int, modified: (Int64, Int)) throws {
        let fd = open(cPath(path), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(call: "open", path: path, code: errno) }
        defer { close(fd) }
        let contents = [UInt8](repeating: 0x61, count: size)
        guard contents.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == size else {
            throw Failure(call: "write", path: path, code: errno)
        }
        try setModified(path, modified)
    }

    static func symlink(_ path: [UInt8], target: [UInt8]) throws {
        let result = Glibc.symlink(cPath(target), cPath(path))
        guard result == 0 else { throw Failure(call: "symlink", path: path, code: errno) }
    }

    static func setModified(_ path: [UInt8], _ modified: (Int64, Int)) throws {
        var times = [
            timespec(tv_sec: Int(modified.0), tv_nsec: modified.1), timespec(tv_sec: Int(modified.0), tv_nsec: modified.1),
        ]
        let result = utimensat(AT_FDCWD, cPath(path), &times, AT_SYMLINK_NOFOLLOW)
        guard result == 0 else { throw Failure(call: "utimensat", path: path, code: errno) }
    }
}

/// Snapshots built in memory (the memberwise initialisers are internal: `@testable`).
enum SyntheticCatalog {
    static let volume = CatalogVolume(
        id: 1, uuid: "3f1c2a9e-5b7d-4e21-9a0c-7d2b6e8f4a15", uuidSource: "FS_IOC_GETFSUUID", label: "Big Archive", fsType: "ext4",
        source: "/dev/sdz1", mountPoint: Array("/media/big".utf8), isPersistent: true)

    static func entry(
        id: Int64, parent: Int64?, name: [UInt8], path: [UInt8], kind: CatalogEntryKind, size: UInt64 = 0, modified: Int64 = 0,
        linkTarget: [UInt8]? = nil
    ) -> CatalogEntry {
        CatalogEntry(
            id: id, parentID: parent, volumeID: 1, name: name, path: path, kind: kind, size: size,
            mode: kind == .directory ? 0o40755 : 0o100644, uid: 1000, gid: 1000, modifiedNanoseconds: modified,
            changedNanoseconds: modified, bornNanoseconds: nil, inode: UInt64(id), generation: nil, linkTarget: linkTarget,
            sha256: nil, firstSeen: Date(timeIntervalSince1970: 1_700_000_000), lastSeen: Date(timeIntervalSince1970: 1_700_000_000),
            deleted: nil)
    }

    /// `/media/big/archive` with 10 folders of 100 folders of `perFolder` files each (100,000 files
    /// at 100), parents first. Every 10,000th file is named `needle-…`.
    static func big(perFolder: Int = 100) -> CatalogRootSnapshot {
        let rootPath = Array("/media/big/archive".utf8)
        var entries: [CatalogEntry] = [entry(id: 1, parent: nil, name: Array("archive".utf8), path: rootPath, kind: .directory)]
        entries.reserveCapacity(1 + 10 * 100 * (perFolder + 1) + 10)
        var next: Int64 = 2
        var fileNumber = 0
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for top in 0..<10 {
            let topName = Array("top-\(top)".utf8)
            let topPath = rootPath + [0x2F] + topName
            let topID = next
            next += 1
            entries.append(entry(id: topID, parent: 1, name: topName, path: topPath, kind: .directory))
            for sub in 0..<100 {
                let subName = Array("sub-\(top)-\(sub)".utf8)
                let subPath = topPath + [0x2F] + subName
                let subID = next
                next += 1
                entries.append(entry(id: subID, parent: topID, name: subName, path: subPath, kind: .directory))
                for _ in 0..<perFolder {
                    // A fixed pseudo-random size and date (SplitMix-style), so every run is alike.
                    state &+= 0x9E37_79B9_7F4A_7C15
                    let noise = (state ^ (state >> 31)) &* 0xBF58_476D_1CE4_E5B9
                    let name = fileNumber % 10_000 == 0 ? "needle-\(fileNumber).txt" : "file-\(fileNumber).dat"
                    let nameBytes = Array(name.utf8)
                    entries.append(
                        entry(
                            id: next, parent: subID, name: nameBytes, path: subPath + [0x2F] + nameBytes, kind: .file,
                            size: noise % 10_000_000, modified: 1_500_000_000_000_000_000 + Int64(noise % 200_000_000) * 1_000_000_000))
                    next += 1
                    fileNumber += 1
                }
            }
        }
        return CatalogRootSnapshot(volume: volume, rootPath: rootPath, scannedAt: Date(timeIntervalSince1970: 1_720_000_000), entries: entries)
    }
}
