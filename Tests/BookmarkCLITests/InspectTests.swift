// SPDX-License-Identifier: Apache-2.0
// `bookmark inspect`: runs the built binary on the shared Apple fixtures.
import Foundation
import Testing

@Suite("bookmark inspect")
struct InspectTests {
    /// The package root, from this file's path (Tests/BookmarkCLITests/InspectTests.swift).
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static let fixtures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")

    /// The `bookmark` executable next to the test bundle; else the newest one under `.build*`.
    static let binary: URL? = {
        let fm = FileManager.default
        var candidates: [URL] = []
        var bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if bundleDir.lastPathComponent.hasSuffix(".xctest") { bundleDir.deleteLastPathComponent() }
        candidates.append(bundleDir.appendingPathComponent("bookmark"))
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("bookmark"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("bookmark"))
        for c in candidates where fm.isExecutableFile(atPath: c.path) { return c }
        // Fallback: the most recently built bookmark binary in any scratch directory.
        let builds = (try? fm.contentsOfDirectory(atPath: packageRoot.path))?.filter { $0.hasPrefix(".build") } ?? []
        var best: (URL, Date)?
        for b in builds {
            for config in ["debug", "release"] {
                let u = packageRoot.appendingPathComponent(b).appendingPathComponent(config).appendingPathComponent("bookmark")
                guard fm.isExecutableFile(atPath: u.path),
                      let date = (try? fm.attributesOfItem(atPath: u.path))?[.modificationDate] as? Date
                else { continue }
                if best.map({ date > $0.1 }) ?? true { best = (u, date) }
            }
        }
        return best?.0
    }()

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ args: [String], stdin: Data? = nil) throws -> Run {
        let binary = try #require(Self.binary, "the bookmark executable was not found next to the tests or in .build*")
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                   stderr: String(decoding: e, as: UTF8.self))
    }

    static let expectedPaths: [(String, String)] = [
        ("fq-sample1.book", "/Applications/Bitwarden.app"),
        ("fq-sample2.book", "/Users/davidmcdonald/hxstore"),
        ("fq-sample3.book", "/Users/davidmcdonald/Documents/Arduino/generated_examples/Blink"),
        ("fq-sample4.book", "/Users/davidmcdonald/go/src/thesis"),
        ("perl-folder.alias", "/System/Library/Perl"),
        ("perl-removable.alias", "/Volumes/SANDISK/untitled"),
        ("perl-root.alias", "/"),
    ]

    @Test("--json works on every fixture", arguments: expectedPaths)
    func json(_ name: String, _ path: String) throws {
        let file = Self.fixtures.appendingPathComponent(name).path
        let r = try Self.run(["inspect", file, "--json"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        for key in ["path", "pathComponents", "fileIDs", "volume", "creationOptions", "tocs", "keys"] {
            #expect(object.keys.contains(key), "missing \(key)")
        }
        #expect(object["path"] as? String == path)
        let volume = try #require(object["volume"] as? [String: Any])
        for key in ["uuid", "name", "path", "url", "capacity"] { #expect(volume.keys.contains(key), "volume.\(key)") }
        let keys = try #require(object["keys"] as? [String: Any])
        #expect(keys["0xD010"] != nil)
        let tocs = try #require(object["tocs"] as? [[String: Any]])
        #expect(!tocs.isEmpty)
        if name == "perl-removable.alias" {
            #expect(volume["name"] as? String == "SANDISK")
            #expect(tocs.count == 2)
            #expect((object["bootVolume"] as? [String: Any])?["name"] as? String == "Macintosh HD")
        }
    }

    @Test func jsonIsStable() throws {
        let file = Self.fixtures.appendingPathComponent("fq-sample3.book").path
        let a = try Self.run(["inspect", "--json", file])
        let b = try Self.run(["inspect", "--json", file])
        #expect(a.stdout == b.stdout)
    }

    @Test func textNamesEveryKey() throws {
        let r = try Self.run(["inspect", Self.fixtures.appendingPathComponent("fq-sample2.book").path])
        #expect(r.status == 0)
        for name in ["pathComponents", "fileIDs", "volUUID", "creationOptions", "userName", "displayName", "0xF000F"] {
            #expect(r.stdout.contains(name), "missing \(name)")
        }
        #expect(r.stdout.contains("path:       /Users/davidmcdonald/hxstore"))
    }

    @Test func loopIsCorruptData() throws {
        let file = Self.fixtures.appendingPathComponent("fq-loop.book").path
        let r = try Self.run(["inspect", file])
        #expect(r.status == 5)
        #expect(r.stderr.contains(file))
        #expect(r.stderr.contains("cycle"))
        #expect(r.stdout.isEmpty)
    }

    @Test func truncatedIsCorruptData() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("fq-sample1.book"))
        let r = try Self.run(["inspect", "-", "--json"], stdin: data.prefix(100))
        #expect(r.status == 5)
        #expect(r.stderr.contains("truncated"))
    }

    @Test func base64OnStdin() throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("perl-folder.alias"))
        let r = try Self.run(["inspect", "--json", "-"], stdin: Data(data.base64EncodedString(options: .lineLength76Characters).utf8))
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(object["base64"] as? Bool == true)
        #expect(object["container"] as? String == "aliasFile")
        #expect(object["path"] as? String == "/System/Library/Perl")
    }

    @Test("a SOURCE that does not exist is 66 (cannot open the input), not 3 (the bookmarked file is gone)")
    func missingFileIsUnopenableSource() throws {
        let r = try Self.run(["inspect", "/nonexistent/bookmark.book"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("/nonexistent/bookmark.book"))
    }
}
