// SPDX-License-Identifier: Apache-2.0
// Deterministic random bookmark records for property and interop tests.
import BookmarkFormat
import VolumeFixtures

enum RandomRecords {
    static let nameScalars: [String] = ["a", "b", "Z", "0", "9", " ", "-", "_", ".", "é", "ß", "ü", "中", "😀", "Å"]

    static func name(_ g: inout SplitMix, utf8Only: Bool) -> ByteString {
        if !utf8Only, g.next() % 8 == 0 {
            // Linux names need not be UTF-8.
            return ByteString(bytes: (0..<(1 + Int(g.next() % 6))).map { _ in UInt8(0x80 + g.next() % 0x7F) })
        }
        let n = 1 + Int(g.next() % 12)
        return ByteString((0..<n).map { _ in nameScalars[Int(g.next() % UInt64(nameScalars.count))] }.joined())
    }

    static func date(_ g: inout SplitMix) -> BookmarkDate {
        // Whole microseconds (mac_alias keeps microseconds) within ±30 years of 2001.
        let micros = Int64(bitPattern: g.next()) % 946_080_000_000_000
        return BookmarkDate(secondsSinceReferenceDate: Double(micros) / 1_000_000)
    }

    static func uuid(_ g: inout SplitMix) -> String {
        let bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: g.next()) }
        return BookmarkUUID(bytes: bytes)?.uppercaseString ?? ""
    }

    /// A random record; `interop` keeps to what Apple-format peers can read (UTF-8 names, one
    /// TOC, no exotic item types).
    static func record(seed: UInt64, interop: Bool) -> BookmarkRecord {
        var g = SplitMix(seed: seed)
        var r = BookmarkRecord()
        let depth = Int(g.next() % 7)
        let comps = (0..<depth).map { _ in name(&g, utf8Only: interop) }
        r.pathComponents = comps
        r.fileIDs = comps.map { _ in
            g.next() % 10 == 0 ? nil : Int64(g.next() % (g.next() % 2 == 0 ? 1 << 62 : 1 << 31)) + 2
        }
        r.creationOptions = [0x2000_0000, 1024, 512, 0][Int(g.next() % 4)]
        r.creationDate = date(&g)
        r.resourceProperties = BookmarkPropertyFlags(flags: g.next() % 2 == 0 ? 2 : 1, validMask: 0x1F, extra: 0)
        let mount: ByteString = g.next() % 2 == 0 ? "/" : ByteString("/mnt/" + (name(&g, utf8Only: true).string ?? "v"))
        r.volume = BookmarkVolume(
            path: mount, url: ByteString(fileURLForDirectory: mount.bytes), name: name(&g, utf8Only: true),
            uuid: uuid(&g), capacity: Int64(g.next() % (1 << 50)), creationDate: date(&g),
            properties: BookmarkPropertyFlags(flags: 0x1_0000_0081, validMask: 0x1_0000_13EF, extra: 0),
            wasBoot: g.next() % 2 == 0)
        if g.next() % 2 == 0 { r.userName = name(&g, utf8Only: true); r.userUID = UInt32(g.next() % 70000) }
        if let last = comps.last, g.next() % 2 == 0 { r.displayName = last }
        if g.next() % 2 == 0 {
            r.linux = LinuxFileFacts(
                generation: g.next() % 0xFFFF_FFFF, handleType: Int32(g.next() % 255),
                handle: (0..<8).map { _ in UInt8(truncatingIfNeeded: g.next()) },
                birthTime: LinuxTimestamp(seconds: Int64(g.next() % 2_000_000_000), nanoseconds: UInt32(g.next() % 1_000_000_000)),
                subvolumeID: g.next() % 300, volumeUUIDSource: .blkid,
                // Even depths: the path's last half below "/", which is stored as a component
                // count; odd: bytes that are not a suffix of the path.
                mountRelativePath: depth % 2 == 0
                    ? ByteString(bytes: [0x2F] + comps.suffix(depth / 2).map(\.bytes).joined(separator: [0x2F]))
                    : ByteString(comps.map(\.escaped).joined(separator: "/")),
                fsType: ["ext4", "xfs", "btrfs"][Int(g.next() % 3)],
                fsid: LinuxFSID(UInt32(truncatingIfNeeded: g.next()), UInt32(truncatingIfNeeded: g.next())))
        }
        if !interop {
            for _ in 0..<Int(g.next() % 4) {
                r[.numeric(UInt32(0x3000 + g.next() % 0x1000))] = item(&g, depth: 0)
            }
            if g.next() % 3 == 0 { r[.string(name(&g, utf8Only: false))] = item(&g, depth: 0) }
            if g.next() % 3 == 0 {
                r.bootVolume = BookmarkVolume(path: "/", url: "file:///", name: "boot", uuid: uuid(&g), wasBoot: true)
                r.volInfoDepths = [0xF000, 0, 1, 0]
            }
        }
        return r
    }

    /// A random item tree of every type.
    static func item(_ g: inout SplitMix, depth: Int) -> BookmarkItem {
        switch g.next() % (depth > 3 ? 12 : 15) {
        case 0: return .string(name(&g, utf8Only: false))
        case 1: return .data((0..<Int(g.next() % 20)).map { _ in UInt8(truncatingIfNeeded: g.next()) })
        case 2: return .number(.sint8(Int8(truncatingIfNeeded: g.next())))
        case 3: return .number(.sint16(Int16(truncatingIfNeeded: g.next())))
        case 4: return .number(.sint32(Int32(truncatingIfNeeded: g.next())))
        case 5: return .number(.sint64(Int64(bitPattern: g.next())))
        case 6: return .number(.float32(Float(bitPattern: UInt32(truncatingIfNeeded: g.next()))))
        case 7: return .number(.float64(Double(bitPattern: g.next())))
        case 8: return .date(date(&g))
        case 9: return .bool(g.next() % 2 == 0)
        case 10: return .uuid(BookmarkUUID(bytes: (0..<16).map { _ in UInt8(truncatingIfNeeded: g.next()) })!)
        case 11: return g.next() % 2 == 0 ? .null : .unknown(type: 0xF000 + UInt32(g.next() % 16), payload: [1, 2, 3])
        case 12: return .array((0..<Int(g.next() % 4)).map { _ in item(&g, depth: depth + 1) })
        case 13:
            return .dictionary((0..<Int(g.next() % 3)).map { _ in
                BookmarkDictionaryEntry(key: .string(name(&g, utf8Only: true)), value: item(&g, depth: depth + 1))
            })
        default: return .relativeURL(base: .url("file:///base/"), relative: .string(name(&g, utf8Only: true)))
        }
    }
}
