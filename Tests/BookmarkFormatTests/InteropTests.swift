// SPDX-License-Identifier: Apache-2.0
// Interop with real Apple-format peers: Debian's fq and PyPI's mac_alias 2.2.3.
// Tools/install-format-peers installs both (CI runs it); without them these tests are skipped
// with the reason shown in the test output.
import Foundation
import Testing
import BookmarkFormat

enum Peers {
    struct Output {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    static func run(_ args: [String], in directory: URL? = nil) -> Output? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        if let directory { p.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { return nil }
        // Read both pipes concurrently so a chatty peer cannot block on a full pipe.
        nonisolated(unsafe) var errData = Data()
        let errThread = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        errThread.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while errThread.isExecuting || !errThread.isFinished { usleep(1000) }
        return Output(status: p.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// `fq` from Debian (decodes Apple bookmarks with `-d apple_bookmark`).
    static let fqAvailable: Bool = run(["fq", "--version"])?.status == 0

    /// `mac_alias` 2.2.3 from PyPI.
    static let macAliasAvailable: Bool =
        run(["python3", "-c", "import importlib.metadata as m, sys; sys.exit(m.version('mac_alias') != '2.2.3')"])?.status == 0

    static let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Interop/mac_alias_peer.py").path

    static func jsonLines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bookmarkformat-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func int64(_ any: Any?) -> Int64? {
        if let n = any as? NSNumber { return n.int64Value }
        return nil
    }

    static func double(_ any: Any?) -> Double? {
        (any as? NSNumber)?.doubleValue
    }
}

@Suite("Interop with fq and mac_alias", .serialized)
struct InteropTests {
    static let count = 1000
    static let records: [BookmarkRecord] = (0..<UInt64(count)).map { RandomRecords.record(seed: 0xB00C + $0, interop: true) }

    // MARK: fq

    @Test("fq decodes our encoding of 1,000 random records to the same values",
          .enabled(if: Peers.fqAvailable, "fq is not installed; run Tools/install-format-peers"))
    func fqReadsOurBookmarks() throws {
        let dir = try Peers.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var names: [String] = []
        for (i, r) in Self.records.enumerated() {
            let name = String(format: "r%04d.book", i)
            try Data(r.encoded()).write(to: dir.appendingPathComponent(name))
            names.append(name)
        }
        let out = try #require(Peers.run(["fq", "-c", "-d", "apple_bookmark", "-r", "torepr"] + names, in: dir))
        #expect(out.status == 0, "fq: \(out.stderr)")
        let lines = try Peers.jsonLines(out.stdout)
        try #require(lines.count == Self.count)
        var agreed = 0
        for (r, fq) in zip(Self.records, lines) {
            let path = (fq["target_path"] as? [String]) ?? []
            let ids: [Int64?] = ((fq["target_cnid_path"] as? [Any]) ?? []).map { Peers.int64($0) }
            var ok = true
            ok = ok && path == (r.pathComponents ?? []).map { $0.string ?? "" }
            ok = ok && ids == (r.fileIDs ?? [])
            ok = ok && fq["volume_uuid"] as? String == r.volume.uuid
            ok = ok && fq["volume_name"] as? String == r.volume.name?.string
            ok = ok && fq["volume_path"] as? String == r.volume.path?.string
            ok = ok && Peers.double(fq["target_creation_date"]) == r.creationDate?.secondsSinceReferenceDate
            ok = ok && Peers.double(fq["volume_creation_date"]) == r.volume.creationDate?.secondsSinceReferenceDate
            ok = ok && Peers.int64(fq["creation_options"]) == r.creationOptions.map(Int64.init)
            #expect(ok, "fq disagrees on \(r.path ?? "?"): \(fq)")
            if ok { agreed += 1 }
        }
        print("interop: fq agreed on \(agreed) of \(Self.count) random records")
        #expect(agreed == Self.count)
    }

    @Test("fq decodes the Apple fixtures to our values",
          .enabled(if: Peers.fqAvailable, "fq is not installed; run Tools/install-format-peers"))
    func fqReadsFixtures() throws {
        // fq reads only in-memory bookmark data, and merges TOCs (it reports the boot volume for
        // perl-removable), so alias files are converted and compared on the target TOC's path only.
        let dir = try Peers.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in Fixtures.goodNames {
            let record = try Fixtures.record(name)
            let file = dir.appendingPathComponent(name + ".book")
            try Data(record.encoded()).write(to: file)
            let out = try #require(Peers.run(["fq", "-d", "apple_bookmark", "-r", "torepr", file.path]))
            #expect(out.status == 0, "fq: \(out.stderr)")
            let fq = try #require(try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any])
            #expect((fq["target_path"] as? [String]) ?? [] == record.componentStrings ?? [])
            let ids: [Int64?] = ((fq["target_cnid_path"] as? [Any]) ?? []).map { Peers.int64($0) }
            #expect(ids == (record.fileIDs ?? []))
            if record.bootVolume == nil {
                #expect(fq["volume_uuid"] as? String == record.volume.uuid)
                #expect(fq["volume_name"] as? String == record.volume.name?.string)
            }
        }
    }

    // MARK: mac_alias

    @Test("mac_alias decodes our encoding of 1,000 random records to the same values",
          .enabled(if: Peers.macAliasAvailable, "mac_alias 2.2.3 is not installed; run Tools/install-format-peers"))
    func macAliasReadsOurBookmarks() throws {
        let dir = try Peers.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("bookmarks.b64")
        let text = try Self.records.map { Data(try $0.encoded()).base64EncodedString() }.joined(separator: "\n")
        try Data(text.utf8).write(to: list)
        let out = try #require(Peers.run(["python3", Peers.helper, "decode", list.path]))
        #expect(out.status == 0, "helper: \(out.stderr)")
        let lines = try Peers.jsonLines(out.stdout)
        try #require(lines.count == Self.count)
        var agreed = 0
        for (r, m) in zip(Self.records, lines) {
            var ok = m["error"] == nil
            ok = ok && (m["path"] as? [String]) ?? [] == (r.pathComponents ?? []).map { $0.string ?? "" }
            let ids: [Int64?] = ((m["fileIDs"] as? [Any]) ?? []).map { Peers.int64($0) }
            ok = ok && ids == (r.fileIDs ?? [])
            ok = ok && m["volumeUUID"] as? String == r.volume.uuid
            ok = ok && m["volumeName"] as? String == r.volume.name?.string
            ok = ok && m["volumePath"] as? String == r.volume.path?.string
            // mac_alias keeps microseconds; our random dates are whole microseconds.
            ok = ok && abs((Peers.double(m["creationDate"]) ?? .nan) - (r.creationDate?.secondsSinceReferenceDate ?? 0)) < 1e-6
            ok = ok && abs((Peers.double(m["volumeCreationDate"]) ?? .nan)
                - (r.volume.creationDate?.secondsSinceReferenceDate ?? 0)) < 1e-6
            // Our Linux string keys reach mac_alias as extra resource values.
            let stringKeys = Set((m["stringKeys"] as? [String]) ?? [])
            let ours = Set(r.stringKeyedValues.keys.compactMap(\.string))
            ok = ok && stringKeys == ours
            #expect(ok, "mac_alias disagrees on \(r.path ?? "?"): \(m)")
            if ok { agreed += 1 }
        }
        print("interop: mac_alias agreed on \(agreed) of \(Self.count) random records")
        #expect(agreed == Self.count)
    }

    @Test("we decode 1,000 bookmarks that mac_alias encodes to the values it was given",
          .enabled(if: Peers.macAliasAvailable, "mac_alias 2.2.3 is not installed; run Tools/install-format-peers"))
    func weReadMacAliasBookmarks() throws {
        let out = try #require(Peers.run(["python3", Peers.helper, "encode", String(Self.count), "20261122"]))
        #expect(out.status == 0, "helper: \(out.stderr)")
        let lines = try Peers.jsonLines(out.stdout)
        try #require(lines.count == Self.count)
        var agreed = 0
        for m in lines {
            let b64 = try #require(m["b64"] as? String)
            let r = try BookmarkSource(decoding: Array(b64.utf8)).record
            var ok = r.componentStrings ?? [] == (m["path"] as? [String]) ?? []
            ok = ok && r.fileIDs ?? [] == ((m["fileIDs"] as? [Any]) ?? []).map { Peers.int64($0) }
            ok = ok && r.volume.uuid == m["volumeUUID"] as? String
            ok = ok && r.volume.name?.string == m["volumeName"] as? String
            ok = ok && abs((r.creationDate?.secondsSinceReferenceDate ?? .nan) - (Peers.double(m["creationDate"]) ?? 0)) < 1e-6
            ok = ok && abs((r.volume.creationDate?.secondsSinceReferenceDate ?? .nan)
                - (Peers.double(m["volumeCreationDate"]) ?? 0)) < 1e-6
            ok = ok && r.stringKeyedValues["NSURLDocumentIdentifierKey"] != nil
            #expect(ok, "we disagree with mac_alias on \(m)")
            if ok { agreed += 1 }
        }
        print("interop: we agreed with mac_alias on \(agreed) of \(Self.count) mac_alias-encoded bookmarks")
        #expect(agreed == Self.count)
    }

    @Test("we decode alias records that mac_alias writes (v2 and v3)",
          .enabled(if: Peers.macAliasAvailable, "mac_alias 2.2.3 is not installed; run Tools/install-format-peers"),
          arguments: [2, 3])
    func weReadMacAliasAliasRecords(version: Int) throws {
        let out = try #require(Peers.run(["python3", Peers.helper, "alias", String(version), "200", "7"]))
        #expect(out.status == 0, "helper: \(out.stderr)")
        let lines = try Peers.jsonLines(out.stdout)
        try #require(lines.count == 200)
        var agreed = 0
        for m in lines {
            let b64 = try #require(m["b64"] as? String)
            let bytes = try #require(Data(base64Encoded: b64))
            let a = try AliasRecord(decoding: [UInt8](bytes))
            let r = BookmarkRecord(aliasRecord: a)
            var ok = a.version == UInt16(version)
            ok = ok && a.displayTargetName == m["name"] as? String
            ok = ok && Int64(a.targetCNID) == Peers.int64(m["cnid"])
            ok = ok && Int64(a.parentCNID) == Peers.int64(m["parentCNID"])
            ok = ok && Int64(a.kind) == Peers.int64(m["kind"])
            ok = ok && r.path == m["path"] as? String
            ok = ok && r.creationDate?.secondsSinceReferenceDate == Peers.double(m["creationDate"])
            ok = ok && r.volume.creationDate?.secondsSinceReferenceDate == Peers.double(m["volumeCreationDate"])
            ok = ok && r.volume.name == "Macintosh HD"
            // Our encoder writes the same bytes back.
            ok = ok && (try? a.encoded()) == [UInt8](bytes)
            #expect(ok, "alias v\(version) disagrees: \(m)")
            if ok { agreed += 1 }
        }
        print("interop: we agreed with mac_alias on \(agreed) of 200 alias v\(version) records")
        #expect(agreed == 200)
    }
}
