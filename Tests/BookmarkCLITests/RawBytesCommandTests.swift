// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import VolumeFixtures

/// `bookmark make / resolve / id / values` on names a script meets: not UTF-8, with a newline,
/// a tab, quotes and backslashes, a leading `-`, 255 bytes long, and one that holds the
/// private-use scalars the command uses internally to carry raw bytes. Every check is byte for
/// byte, as root and as uid 65534, on a real volume.
@Suite("bookmark: bytes in, bytes out", .serialized, .requiresRealVolumes)
struct RawBytesCommandTests {
    typealias Object = [String: Any]

    /// The names, as bytes.
    static let names: [(label: String, bytes: [UInt8])] = [
        ("latin-1 é", Array("caf".utf8) + [0xE9] + Array(".txt".utf8)),
        ("newline", Array("new\nline.txt".utf8)),
        ("tab, quotes, backslash", Array("tab\there q\"uo\\te.txt".utf8)),
        ("leading dash", Array("-dash.txt".utf8)),
        ("255 bytes", Array(repeating: UInt8(ascii: "L"), count: 251) + Array(".txt".utf8)),
        ("invalid bytes only", [0xFF, 0xFE, 0x80]),
        ("carrier scalar U+10FF80 as valid UTF-8", Array("x".utf8) + [0xF4, 0x8F, 0xBE, 0x80] + Array(".txt".utf8)),
        ("valid UTF-8", Array("naïve ✓.txt".utf8)),
    ]

    @Test("as root: make, resolve (plain, -0, JSON), id and values give every name back exactly")
    func asRoot() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            try checkEveryName(in: volume.path("files"), run: { try BookmarkTool.run(bytes: $0) })
        }
    }

    @Test("as uid 65534: the same, in a directory it owns", .requiresUnprivilegedUser)
    func asUnprivileged() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let directory = volume.path("nobody")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Shell.check(["chown", "65534:65534", directory])
            try checkEveryName(in: directory, owner: 65534, run: { try BookmarkTool.runUnprivileged(bytes: $0) })
        }
    }

    @Test("a moved file with a non-UTF-8 name is found under its new name, byte for byte; stderr escapes bytes")
    func movedAndMissing() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let directory = Array(volume.path("d").utf8)
            try FileManager.default.createDirectory(atPath: volume.path("d"), withIntermediateDirectories: true)
            let old = directory + Array("/caf".utf8) + [0xE9]
            let new = directory + Array("/moved\n".utf8) + [0xE9, 0xFF]
            try makeFile(old)
            let bookmark = Array(volume.path("b.bookmark").utf8)
            let made = try BookmarkTool.run(bytes: [Array("make".utf8), old, Array("-o".utf8), bookmark])
            #expect(made.status == 0, "\(made.stderr)")
            #expect(rename(cString(old), cString(new)) == 0)
            let resolved = try BookmarkTool.run(bytes: [Array("resolve".utf8), bookmark])
            #expect(resolved.status == 0, "\(resolved.stderr)")
            #expect(Array(resolved.stdoutData) == new + [0x0A])
            #expect(unlink(cString(new)) == 0)
            let missing = try BookmarkTool.run(bytes: [Array("id".utf8), new])
            #expect(missing.status == 3)
            // The message names the file with its bytes escaped, so a person sees which one.
            #expect(missing.stderr.contains("moved\\x0a\\xe9\\xff"), "\(missing.stderr)")
            #expect(!missing.stderrData.contains(0xE9))
        }
    }

    // MARK: Helpers

    private func checkEveryName(in directory: String, owner: uid_t? = nil, run: ([[UInt8]]) throws -> CommandResult) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let base = Array(directory.utf8) + [UInt8(ascii: "/")]
        for (index, name) in Self.names.enumerated() {
            let path = base + name.bytes
            try makeFile(path, owner: owner)
            let bookmark = base + Array("bookmark-\(index)".utf8)
            let made = try run([Array("make".utf8), path, Array("-o".utf8), bookmark])
            #expect(made.status == 0, "\(name.label): \(made.stderr)")

            let plain = try run([Array("resolve".utf8), bookmark])
            #expect(plain.status == 0, "\(name.label): \(plain.stderr)")
            #expect(Array(plain.stdoutData) == path + [0x0A], "\(name.label): \(plain.stdout)")
            let nul = try run([Array("resolve".utf8), Array("-0".utf8), bookmark])
            #expect(Array(nul.stdoutData) == path + [0x00], "\(name.label)")

            let resolved = try json(run([Array("resolve".utf8), Array("--json".utf8), bookmark]))
            #expect(try pathBytes(resolved, key: "path") == path, "\(name.label): \(resolved)")

            let id = try json(run([Array("id".utf8), Array("--json".utf8), path]))
            #expect(try pathBytes(id, key: "path") == path, "\(name.label)")
            let idPlain = try run([Array("id".utf8), path])
            #expect(idPlain.status == 0, "\(name.label): \(idPlain.stderr)")
            #expect(Array(idPlain.stdoutData).starts(with: Array("path         ".utf8) + path + [0x0A]), "\(name.label)")

            let values = try json(run([Array("values".utf8), Array("--json".utf8), bookmark]))
            #expect(try pathBytes(values, key: "path") == path, "\(name.label): \(values)")
            #expect(try pathBytes(values, key: "name") == name.bytes, "\(name.label): \(values)")
            let valuesPlain = try run([Array("values".utf8), bookmark])
            #expect(Array(valuesPlain.stdoutData).starts(with: Array("path             ".utf8) + path + [0x0A]), "\(name.label)")

            // Base64 on stdout, read back from stdin.
            let printed = try run([Array("make".utf8), path])
            let fromStdin = try BookmarkTool.run(bytes: [Array("resolve".utf8), Array("-".utf8)], input: printed.stdoutData)
            #expect(Array(fromStdin.stdoutData) == path + [0x0A], "\(name.label): \(fromStdin.stderr)")
        }
    }

    /// The exact bytes a JSON record gives for path field `key`: its `…Base64` twin when present
    /// (required when the bytes are not UTF-8), else the text's UTF-8.
    private func pathBytes(_ object: Object, key: String) throws -> [UInt8] {
        let text = try #require(object[key] as? String, "no \(key) in \(object)")
        if let base64 = object[key + "Base64"] as? String {
            let bytes = try #require(Data(base64Encoded: base64), "bad base64")
            // The text is the same bytes with U+FFFD for what is not UTF-8.
            #expect(String(decoding: bytes, as: UTF8.self) == text)
            #expect(String(validating: Array(bytes), as: UTF8.self) == nil, "a twin for valid UTF-8")
            return Array(bytes)
        }
        return Array(text.utf8)
    }

    private func json(_ result: CommandResult) throws -> Object {
        try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? Object, "stdout: \(result.stdout) stderr: \(result.stderr)")
    }

    private func makeFile(_ path: [UInt8], owner: uid_t? = nil) throws {
        let fd = open(cString(path), O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(fd >= 0, "cannot create \(String(decoding: path, as: UTF8.self)): errno \(errno)")
        _ = write(fd, "x", 1)
        if let owner { _ = fchown(fd, owner, owner) }
        close(fd)
    }

    private func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
}
