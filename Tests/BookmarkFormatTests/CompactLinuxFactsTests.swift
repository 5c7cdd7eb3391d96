// SPDX-License-Identifier: Apache-2.0
// The compact Linux-facts item: its documented bytes, round trips, the 0.1 keys, hostile input.
import BookmarkFormat
import Testing
import VolumeFixtures

@Suite("Compact Linux facts (org.swift-bookmarks.linux)")
struct CompactLinuxFactsTests {
    static let everyFact = LinuxFileFacts(
        generation: 300, handleType: -2, handle: [0xAA, 0xBB],
        birthTime: LinuxTimestamp(seconds: -1, nanoseconds: 5), subvolumeID: 256, volumeUUIDSource: .blkid,
        mountRelativePath: "/b/c", fsType: "xfs", fsid: LinuxFSID(1, 0x0102_0304))

    /// The bytes of a valid item with every field, written by hand from Docs/FORMAT.md §3.
    static let everyFactBytes: [UInt8] = [
        0x01,  // version
        0xFF, 0x03,  // mask 0x1FF: all nine fields
        0xAC, 0x02,  // generation 300
        0x03,  // handle type -2, zigzag 3
        0x02, 0xAA, 0xBB,  // handle: length 2, bytes
        0x01, 0x05,  // birth time: seconds -1 (zigzag 1), nanoseconds 5
        0x80, 0x02,  // subvolume 256
        0x04,  // UUID source: code 4, blkid
        0x04,  // mount-relative path: 2 trailing components (even tag 4)
        0x03, 0x78, 0x66, 0x73,  // fsType "xfs"
        0x01, 0x00, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,  // fsid: val0, val1 little-endian
    ]

    // MARK: - Layout

    @Test("every field, byte for byte as documented")
    func documentedLayout() throws {
        let components: [ByteString] = ["a", "b", "c"]
        #expect(try Self.everyFact.compactItem(pathComponents: components) == Self.everyFactBytes)
        #expect(try LinuxFileFacts(compactItem: Self.everyFactBytes, pathComponents: components) == Self.everyFact)
    }

    @Test("a path that is not a suffix of the components, and an unknown UUID source, are stored as bytes")
    func bytesForms() throws {
        let facts = LinuxFileFacts(volumeUUIDSource: VolumeUUIDSource(rawValue: "custom"), mountRelativePath: "/x")
        let expected: [UInt8] = [0x01, 0x60, 0x00, 0x06] + Array("custom".utf8) + [0x05, 0x2F, 0x78]
        #expect(try facts.compactItem(pathComponents: nil) == expected)
        #expect(try facts.compactItem(pathComponents: ["a", "y"]) == expected)
        #expect(try LinuxFileFacts(compactItem: expected, pathComponents: nil) == facts)
    }

    @Test("the mount-relative path as a component count exactly when that gives the same bytes",
          arguments: [
              // (path, components, count or nil for bytes)
              ("/", [], 0), ("/", ["a"], 0), ("/a/b", ["a", "b"], 2), ("/b", ["a", "b"], 1),
              ("/ab", ["a", "b"], nil), ("/b/", ["a", "b"], nil), ("b", ["a", "b"], nil), ("//b", ["a", "b"], nil),
              ("/a/b", ["b"], nil), ("/x/b", ["a", "b"], nil), ("", ["a"], nil), ("/\u{e9}", ["\u{e9}"], 1),
          ] as [(String, [String], Int?)])
    func componentCount(path: String, components: [String], count: Int?) throws {
        let comps = components.map { ByteString($0) }
        let facts = LinuxFileFacts(mountRelativePath: ByteString(path))
        let item = try facts.compactItem(pathComponents: comps)
        if let count {
            #expect(item == [0x01, 0x40, UInt8(count * 2)])
        } else {
            #expect(item.count == 3 + path.utf8.count && item[2] & 1 == 1)
        }
        #expect(try LinuxFileFacts(compactItem: item, pathComponents: comps) == facts)
    }

    @Test("creation's shortcut (counting against the path the components were split from) agrees",
          arguments: [
              ("/", "/"), ("/", "/a"), ("/a/b", "/a/b"), ("/b", "/a/b"), ("/ab", "/a/b"), ("/b/", "/a/b/"),
              ("b", "/a/b"), ("//b", "/a//b"), ("/b", "/a//b"), ("/a/b", "/b"), ("/x/b", "/a/b"), ("", "/a"),
              ("/c", "/a/b"), ("/b", "b"),
          ])
    func splitFromShortcut(path: String, recorded: String) throws {
        let facts = LinuxFileFacts(generation: 1, mountRelativePath: ByteString(path))
        var byComponents = BookmarkRecord()
        byComponents.pathComponents = recorded.split(separator: "/").map { ByteString(String($0)) }
        var byPath = byComponents
        try byComponents.setLinuxFacts(facts)
        try byPath.setLinuxFacts(facts, componentsSplitFrom: Array(recorded.utf8))
        #expect(byPath.linux == facts)
        if recorded.hasPrefix("/") {
            #expect(byPath == byComponents)
        } else {
            // Not a path creation makes: the shortcut keeps the bytes, which is exact too.
            #expect(byPath[LinuxKeys.compact] == .data([0x01, 0x41, 0x01, UInt8(2 * path.utf8.count + 1)] + Array(path.utf8)))
        }
    }

    @Test("non-UTF-8 path bytes are kept, as a count and as bytes")
    func nonUTF8Path() throws {
        let name = ByteString(bytes: [0xFF, 0xFE])
        let facts = LinuxFileFacts(mountRelativePath: ByteString(bytes: [0x2F, 0xFF, 0xFE]))
        var record = BookmarkRecord()
        record.pathComponents = ["home", name]
        try record.setLinuxFacts(facts)
        #expect(record[LinuxKeys.compact] == .data([0x01, 0x40, 0x02]))
        #expect(try BookmarkRecord(decoding: record.encoded()).linux == facts)
        #expect(try LinuxFileFacts(compactItem: facts.compactItem(pathComponents: nil), pathComponents: nil) == facts)
    }

    @Test("extreme values round-trip")
    func extremes() throws {
        let cases = [
            LinuxFileFacts(generation: .max, handleType: .min, handle: [], birthTime: LinuxTimestamp(seconds: .min, nanoseconds: 999_999_999),
                           subvolumeID: .max, fsType: "", fsid: LinuxFSID(.max, 0)),
            LinuxFileFacts(generation: 0, handleType: .max, handle: Array(repeating: 7, count: 300),
                           birthTime: LinuxTimestamp(seconds: .max, nanoseconds: 0), subvolumeID: 0),
            LinuxFileFacts(mountRelativePath: ""),
        ]
        for facts in cases {
            let item = try facts.compactItem(pathComponents: nil)
            #expect(try LinuxFileFacts(compactItem: item, pathComponents: nil) == facts)
        }
        // A birth time that 0.1's 64-bit nanoseconds could not hold is now kept.
        var record = BookmarkRecord()
        try record.setLinuxFacts(cases[0])
        #expect(try BookmarkRecord(decoding: record.encoded()).linux == cases[0])
    }

    @Test("random facts round-trip through encoded bookmarks")
    func randomRoundTrips() throws {
        var g = SplitMix(seed: 0x11AC)
        for _ in 0..<500 {
            var record = RandomRecords.record(seed: g.next(), interop: false)
            let components = record.pathComponents ?? []
            func maybe<T>(_ make: () -> T) -> T? { g.next() % 4 == 0 ? nil : make() }
            let suffix = components.suffix(Int(g.next() % UInt64(components.count + 1)))
            let facts = LinuxFileFacts(
                generation: maybe { g.next() >> (g.next() % 64) }, handleType: maybe { Int32(truncatingIfNeeded: g.next()) },
                handle: maybe { (0..<Int(g.next() % 40)).map { _ in UInt8(truncatingIfNeeded: g.next()) } },
                birthTime: maybe { LinuxTimestamp(seconds: Int64(bitPattern: g.next()) >> (g.next() % 64),
                                                  nanoseconds: UInt32(g.next() % 1_000_000_000)) },
                subvolumeID: maybe { g.next() % 100_000 },
                volumeUUIDSource: maybe { g.next() % 3 == 0 ? VolumeUUIDSource(rawValue: "x\(g.next() % 9)") : .fsUUIDIoctl },
                mountRelativePath: maybe {
                    g.next() % 2 == 0 ? ByteString(bytes: [0x2F] + suffix.map(\.bytes).joined(separator: [0x2F]))
                        : RandomRecords.name(&g, utf8Only: false)
                },
                fsType: maybe { ["ext4", "btrfs", "fuse.sshfs", "tmpfs"][Int(g.next() % 4)] },
                fsid: maybe { LinuxFSID(UInt32(truncatingIfNeeded: g.next()), UInt32(truncatingIfNeeded: g.next())) })
            try record.setLinuxFacts(facts)
            #expect(record.linux == facts)
            let decoded = try BookmarkRecord(decoding: record.encoded())
            #expect(decoded.linux == facts)
            #expect(decoded.linuxFacts(pathComponents: decoded.pathComponents) == facts)
            #expect(decoded == record)
        }
    }

    // MARK: - Writing

    @Test("writing the facts removes the nine 0.1 keys and nothing else of ours")
    func writingRemovesLegacyKeys() throws {
        var record = try BookmarkRecord(decoding: LegacyBookmark.bytes)
        let signature = BookmarkKey.string(ByteString(LinuxKeys.prefix + "signature.hmac-sha256"))
        let neighbours: [BookmarkKey] = [signature, .string("org.swift-bookmarks.linux-other"), .string("org.swift-bookmarks.linuxx")]
        for key in neighbours { record[key] = .int32(1) }
        record.linux = record.linux
        let keys = Set(record.stringKeyedValues.keys)
        for key in LinuxKeys.legacy {
            guard case .string(let name) = key else { continue }
            #expect(!keys.contains(name), "\(name) is left")
        }
        for key in neighbours { #expect(record[key] == .int32(1)) }
        #expect(record.linux == LegacyBookmark.facts)
        let encoded = try record.encoded()
        #expect(try BookmarkRecord(decoding: encoded).linux == LegacyBookmark.facts)

        // Without the neighbours: the refreshed 0.1 bookmark is 548 bytes smaller.
        var plain = try BookmarkRecord(decoding: LegacyBookmark.bytes)
        plain.linux = plain.linux
        #expect(try plain.encoded().count == LegacyBookmark.bytes.count - 548)
    }

    @Test("empty facts remove the item; an invalid birth time is refused, or dropped by the property")
    func emptyAndInvalid() throws {
        var record = BookmarkRecord()
        record.pathComponents = ["a"]
        try record.setLinuxFacts(Self.everyFact)
        #expect(record[LinuxKeys.compact] != nil)
        try record.setLinuxFacts(LinuxFileFacts())
        #expect(record[LinuxKeys.compact] == nil)

        var bad = LinuxTimestamp(seconds: 1, nanoseconds: 0)
        bad.nanoseconds = 1_000_000_000
        let facts = LinuxFileFacts(generation: 3, birthTime: bad)
        #expect(throws: BookmarkFormatError.self) { try record.setLinuxFacts(facts) }
        #expect(record[LinuxKeys.compact] == nil)
        record.linux = facts
        #expect(record.linux == LinuxFileFacts(generation: 3))
    }

    @Test("a path stored as a component count survives a change of the components")
    func pathFollowsComponents() throws {
        var record = BookmarkRecord()
        record.pathComponents = ["mnt", "a", "b"]
        try record.setLinuxFacts(LinuxFileFacts(mountRelativePath: "/a/b"))
        #expect(record[LinuxKeys.compact] == .data([0x01, 0x40, 0x04]))
        record.pathComponents = ["elsewhere", "c"]
        #expect(record.linux.mountRelativePath == "/a/b")
        record.pathComponents = ["x", "a", "b"]
        #expect(record.linux.mountRelativePath == "/a/b")
        #expect(try BookmarkRecord(decoding: record.encoded()).linux.mountRelativePath == "/a/b")
        // Removing the components keeps it as well.
        var other = BookmarkRecord()
        other.pathComponents = ["a", "b"]
        try other.setLinuxFacts(LinuxFileFacts(mountRelativePath: "/b"))
        #expect(other[LinuxKeys.compact] == .data([0x01, 0x40, 0x02]))
        other.pathComponents = nil
        #expect(other.linux.mountRelativePath == "/b")
    }

    // MARK: - Reading the 0.1 layout

    @Test("a bookmark written by 0.1 decodes to its nine facts")
    func legacyFixture() throws {
        let record = try BookmarkRecord(decoding: LegacyBookmark.bytes)
        #expect(record[LinuxKeys.compact] == nil)
        for key in LinuxKeys.legacy { #expect(record[key] != nil, "\(key) missing from the fixture") }
        #expect(record.linux == LegacyBookmark.facts)
        #expect(record.linuxFacts(pathComponents: record.pathComponents) == LegacyBookmark.facts)
        #expect(record.path == "/tmp/wtf-btrfs/sv/b/file.txt")
        #expect(record.volume.uuid == "6EE454CF-2EB2-453D-990F-7EC43673A6F0")
    }

    @Test("the compact item wins over 0.1 keys; an unreadable one falls back to them")
    func precedence() throws {
        var record = try BookmarkRecord(decoding: LegacyBookmark.bytes)
        // A record that has both (0.1 keys written into a newer bookmark by hand).
        record[LinuxKeys.compact] = .data([0x01, 0x01, 0x05])
        #expect(record.linux == LinuxFileFacts(generation: 5))
        for unreadable: BookmarkItem in [.data([0x02, 0x01, 0x05]), .data([0x01, 0x01]), .data([]), .string("x"), .int32(1)] {
            record[LinuxKeys.compact] = unreadable
            #expect(record.linux == LegacyBookmark.facts, "\(unreadable)")
            #expect(try BookmarkRecord(decoding: record.encoded()).linux == LegacyBookmark.facts)
        }
    }

    // MARK: - Hostile input

    /// Decodes `bytes` as the compact item of an otherwise empty record with path components.
    static func readThroughRecord(_ bytes: [UInt8]) throws -> LinuxFileFacts {
        var record = BookmarkRecord()
        record.pathComponents = ["a", "b", "c"]
        record[LinuxKeys.compact] = .data(bytes)
        let decoded = try BookmarkRecord(decoding: record.encoded())
        #expect(decoded.linux == record.linux)
        return decoded.linux
    }

    @Test("every truncation is a typed error, and the record then has no facts")
    func truncations() throws {
        for n in 0..<Self.everyFactBytes.count {
            let prefix = Array(Self.everyFactBytes[0..<n])
            #expect(throws: BookmarkFormatError.self) { _ = try LinuxFileFacts(compactItem: prefix, pathComponents: ["a", "b"]) }
            #expect(try Self.readThroughRecord(prefix).isEmpty)
        }
    }

    @Test("unknown versions read as no facts")
    func unknownVersions() throws {
        for version: UInt8 in [0, 2, 0x7F, 0xFF] {
            let bytes = [version] + Self.everyFactBytes.dropFirst()
            #expect {
                _ = try LinuxFileFacts(compactItem: bytes, pathComponents: nil)
            } throws: { error in
                guard let e = error as? BookmarkFormatError, case .malformedValue(let reason) = e.kind else { return false }
                return reason == "org.swift-bookmarks.linux: layout version \(version), not 1" && e.offset == 0
            }
            #expect(try Self.readThroughRecord(bytes).isEmpty)
        }
    }

    @Test("numbers longer than 64 bits and lengths past the end are typed errors, allocating nothing")
    func hugeNumbersAndLengths() throws {
        let cases: [(String, [UInt8])] = [
            ("11-byte generation", [0x01, 0x01] + Array(repeating: 0xFF, count: 10) + [0x01]),
            ("65-bit generation", [0x01, 0x01] + Array(repeating: 0xFF, count: 9) + [0x02]),
            ("11-byte mask", [0x01] + Array(repeating: 0x80, count: 10) + [0x00]),
            ("handle length 2^64-1", [0x01, 0x04] + Array(repeating: 0xFF, count: 9) + [0x01]),
            ("handle length 2^63", [0x01, 0x04] + Array(repeating: 0x80, count: 9) + [0x01]),
            ("handle longer than the rest", [0x01, 0x04, 0x05, 0xAA, 0xBB]),
            ("path length past the end", [0x01, 0x40, 0x07, 0x2F]),
            ("path length 2^62", [0x01, 0x40] + Array(repeating: 0xFF, count: 8) + [0x7F]),
            ("UUID-source string past the end", [0x01, 0x20, 0x00, 0x09, 0x61]),
            ("fsType length past the end", [0x01, 0x80, 0x01, 0x08, 0x65]),
            ("fsid of 7 bytes", [0x01, 0x80, 0x02] + Array(repeating: 0, count: 7)),
            ("a mask announcing a field that is not there", [0x01, 0x01]),
        ]
        for (name, bytes) in cases {
            #expect(throws: BookmarkFormatError.self, "\(name)") { _ = try LinuxFileFacts(compactItem: bytes, pathComponents: nil) }
            #expect(try Self.readThroughRecord(bytes).isEmpty, "\(name)")
        }
        // The largest 64-bit number is ten bytes whose last holds bit 63 alone.
        let largest: [UInt8] = [0x01, 0x01] + Array(repeating: 0xFF, count: 9) + [0x01]
        #expect(try LinuxFileFacts(compactItem: largest, pathComponents: nil) == LinuxFileFacts(generation: .max))
    }

    @Test("values their type cannot hold read as nil; the other fields are kept")
    func outOfRangeFields() throws {
        let cases: [(String, [UInt8], LinuxFileFacts)] = [
            ("handle type beyond 32 bits", [0x01, 0x03, 0x05, 0x80, 0x80, 0x80, 0x80, 0x20], LinuxFileFacts(generation: 5)),
            ("nanoseconds of 10^9", [0x01, 0x09, 0x05, 0x02, 0x80, 0x94, 0xEB, 0xDC, 0x03], LinuxFileFacts(generation: 5)),
            ("unknown UUID-source code", [0x01, 0xA0, 0x01, 0x09, 0x04, 0x65, 0x78, 0x74, 0x34], LinuxFileFacts(fsType: "ext4")),
            ("UUID-source string not UTF-8", [0x01, 0x21, 0x05, 0x00, 0x01, 0xFF], LinuxFileFacts(generation: 5)),
            ("fsType not UTF-8", [0x01, 0x81, 0x01, 0x05, 0x02, 0xC3, 0x28], LinuxFileFacts(generation: 5)),
            ("more trailing components than the path has", [0x01, 0x41, 0x05, 0x08], LinuxFileFacts(generation: 5)),
            ("fields of a later version after the known ones", [0x01, 0x81, 0x05, 0x07, 0x03, 0x78, 0x66, 0x73, 0x99, 0x01],
             LinuxFileFacts(generation: 7, fsType: "xfs")),
            ("bytes after the last field", [0x01, 0x01, 0x07, 0xDE, 0xAD], LinuxFileFacts(generation: 7)),
            ("an empty mask", [0x01, 0x00], LinuxFileFacts()),
        ]
        for (name, bytes, expected) in cases {
            #expect(try LinuxFileFacts(compactItem: bytes, pathComponents: ["a", "b", "c"]) == expected, "\(name)")
            #expect(try Self.readThroughRecord(bytes) == expected, "\(name)")
        }
    }

    @Test("random bytes and every single-byte change never trap")
    func mutations() throws {
        var g = SplitMix(seed: 0xC0DE)
        var inputs: [[UInt8]] = []
        for i in 0..<Self.everyFactBytes.count {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF, UInt8(truncatingIfNeeded: g.next())] {
                var m = Self.everyFactBytes
                m[i] = value
                inputs.append(m)
            }
        }
        for _ in 0..<2000 {
            let n = Int(g.next() % 40)
            inputs.append([0x01] + (0..<n).map { _ in UInt8(truncatingIfNeeded: g.next() >> (g.next() % 8 == 0 ? 0 : 56)) })
        }
        for bytes in inputs {
            let direct = try? LinuxFileFacts(compactItem: bytes, pathComponents: ["a", "b", "c"])
            let viaRecord = try Self.readThroughRecord(bytes)
            #expect(viaRecord == (direct ?? LinuxFileFacts()))
            if let direct {
                // Whatever decodes encodes again to something that decodes to the same facts.
                let again = try direct.compactItem(pathComponents: ["a", "b", "c"])
                #expect(try LinuxFileFacts(compactItem: again, pathComponents: ["a", "b", "c"]) == direct)
            }
        }
    }

    // MARK: - Names and inspection

    @Test("inspection names the key and shows the facts decoded")
    func inspection() throws {
        #expect(LinuxKeys.compact.name == "linux")
        #expect(LinuxKeys.generation.name == "linux.generation")
        var record = BookmarkRecord()
        record.pathComponents = ["a", "b", "c"]
        try record.setLinuxFacts(Self.everyFact)
        let inspection = BookmarkInspection(source: nil, record: try BookmarkRecord(decoding: record.encoded()))
        #expect(inspection.text.contains("linux:      generation 300, handle type -2, handle aabb, born -1.000000005, "
            + "subvolume 256, uuid from blkid, mount-relative /b/c, xfs, fsid 0100000004030201"))
        #expect(inspection.jsonText.contains("\"mountRelativePath\": \"/b/c\""))
        #expect(inspection.jsonText.contains("\"name\": \"linux\""))
    }
}
