// SPDX-License-Identifier: Apache-2.0
// Malformed and malicious input fails fast with a typed error; it never traps or hangs.
import BookmarkFormat
import Testing
import VolumeFixtures

@Suite("Hostile input")
struct HostileInputTests {
    @Test func loopFailsFastWithCycleError() throws {
        let bytes = try Fixtures.bytes("fq-loop.book")
        let start = ContinuousClock.now
        #expect {
            _ = try BookmarkDocument(decoding: bytes)
        } throws: { error in
            guard let e = error as? BookmarkFormatError, case .cycle(let off) = e.kind else { return false }
            return off == 0x3C && e.offset == 48 + 0x3C
        }
        #expect(ContinuousClock.now - start < .seconds(10), "a hang, not a slow machine: the limit is generous on purpose")
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkSource(decoding: bytes) }
    }

    @Test("every truncation of every fixture throws a typed error", arguments: Fixtures.allNames)
    func truncations(_ name: String) throws {
        let bytes = try Fixtures.bytes(name)
        for n in 0..<bytes.count {
            let prefix = Array(bytes[0..<n])
            // Bookmark data is self-sized: a shorter prefix must be refused.
            #expect(throws: BookmarkFormatError.self) { _ = try BookmarkSource(decoding: prefix) }
        }
    }

    @Test("single-byte mutations never trap", arguments: Fixtures.allNames)
    func mutations(_ name: String) throws {
        let bytes = try Fixtures.bytes(name)
        var rng = SplitMix(seed: UInt64(name.utf8.count))
        for i in 0..<bytes.count {
            var m = bytes
            m[i] = UInt8(truncatingIfNeeded: rng.next())
            if let s = try? BookmarkSource(decoding: m) {
                let doc = s.record.document
                #expect(try BookmarkDocument(decoding: doc.encoded()) == doc)
                _ = BookmarkInspection(source: s).jsonText
            }
        }
    }

    @Test func sizeLimit() throws {
        let bytes = try Fixtures.bytes("fq-sample1.book")
        let limits = BookmarkDecodingLimits(maxInputSize: 100)
        #expect(throws: BookmarkFormatError(.sizeLimitExceeded(size: 560, limit: 100), at: 0)) {
            _ = try BookmarkDocument(decoding: bytes, limits: limits)
        }
    }

    @Test func badMagicAndHeader() throws {
        var bytes = try Fixtures.bytes("fq-sample1.book")
        bytes[0] = UInt8(ascii: "x")
        #expect(throws: BookmarkFormatError(.badMagic(found: Array("xook".utf8)), at: 0)) {
            _ = try BookmarkDocument(decoding: bytes)
        }
        bytes[0] = UInt8(ascii: "b")
        bytes[4] = 0xFF  // size larger than the input
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkDocument(decoding: bytes) }
    }

    /// Builds a data section by hand: items at given offsets, then one TOC.
    static func blob(items: [[UInt8]], toc entries: [(UInt32, UInt32)], tocID: UInt32 = 1, next: UInt32 = 0) -> [UInt8] {
        var w = ByteWriter()
        w.u32le(0)
        for i in items { w.bytes += i; w.pad(to: 4) }
        let tocOffset = UInt32(w.bytes.count)
        w.u32le(UInt32(12 * entries.count + 12)); w.u32le(0xFFFF_FFFE); w.u32le(tocID); w.u32le(next)
        w.u32le(UInt32(entries.count))
        for (k, o) in entries { w.u32le(k); w.u32le(o); w.u32le(0) }
        w.setU32le(tocOffset, at: 0)
        var h = ByteWriter()
        h.bytes = Array("book".utf8)
        h.u32le(UInt32(48 + w.bytes.count)); h.u32le(0x1004_0000); h.u32le(48)
        h.bytes += [UInt8](repeating: 0, count: 32)
        return h.bytes + w.bytes
    }

    static func item(_ type: UInt32, _ payload: [UInt8]) -> [UInt8] {
        UInt32(payload.count).littleEndianBytes + type.littleEndianBytes + payload
    }

    @Test func exponentialSharingHitsItemLimit() throws {
        // Item k is an array holding item k-1 twice: 2^40 nodes once expanded.
        var items: [[UInt8]] = [Self.item(0x0A01, [])]
        var offsets: [UInt32] = [4]
        for _ in 1...40 {
            let prev = offsets.last ?? 4
            items.append(Self.item(0x0601, prev.littleEndianBytes + prev.littleEndianBytes))
            offsets.append(offsets.last.map { $0 + UInt32((items[items.count - 2].count + 3) & ~3) } ?? 4)
        }
        let bytes = Self.blob(items: items, toc: [(0x1004, offsets.last ?? 4)])
        let start = ContinuousClock.now
        #expect {
            _ = try BookmarkDocument(decoding: bytes, limits: BookmarkDecodingLimits(maxDepth: 64))
        } throws: { e in
            guard let e = e as? BookmarkFormatError, case .itemLimitExceeded = e.kind else { return false }
            return true
        }
        #expect(ContinuousClock.now - start < .seconds(10), "a hang, not a slow machine: the limit is generous on purpose")
    }

    @Test func largeSharedStringHitsExpandedSizeLimit() throws {
        // One 100 KB string referenced 1,000 times: 100 MB once expanded, 104 KB on the wire.
        let big = Self.item(0x0101, [UInt8](repeating: 0x41, count: 100_000))
        let refs = (0..<1000).flatMap { _ in UInt32(4).littleEndianBytes }
        let bytes = Self.blob(items: [big, Self.item(0x0601, refs)], toc: [(0x1004, UInt32(4 + big.count))])
        let start = ContinuousClock.now
        #expect {
            _ = try BookmarkDocument(decoding: bytes)
        } throws: { e in
            guard let e = e as? BookmarkFormatError, case .expandedSizeLimitExceeded = e.kind else { return false }
            return true
        }
        #expect(ContinuousClock.now - start < .seconds(10), "a hang, not a slow machine: the limit is generous on purpose")
    }

    @Test func deepNestingHitsDepthLimit() throws {
        var items: [[UInt8]] = [Self.item(0x0A01, [])]
        var offsets: [UInt32] = [4]
        for _ in 1...100 {
            let prev = offsets.last ?? 4
            items.append(Self.item(0x0601, prev.littleEndianBytes))
            offsets.append((offsets.last ?? 4) + UInt32((items[items.count - 2].count + 3) & ~3))
        }
        let bytes = Self.blob(items: items, toc: [(0x1004, offsets.last ?? 4)])
        #expect {
            _ = try BookmarkDocument(decoding: bytes)
        } throws: { e in
            guard let e = e as? BookmarkFormatError, case .depthLimitExceeded(32) = e.kind else { return false }
            return true
        }
    }

    @Test func tocChainCycleAndOutOfBoundsOffsets() throws {
        // The TOC's "next" points at itself.
        let selfLoop = Self.blob(items: [Self.item(0x0A01, [])], toc: [(0x1004, 4)], next: 12)
        #expect {
            _ = try BookmarkDocument(decoding: selfLoop)
        } throws: { e in
            guard let e = e as? BookmarkFormatError, case .tocChain = e.kind else { return false }
            return true
        }
        let outside = Self.blob(items: [Self.item(0x0A01, [])], toc: [(0x1004, 0x7FFF_0000)])
        #expect(throws: BookmarkFormatError(.offsetOutOfBounds(0x7FFF_0000), at: 48 + 0x7FFF_0000)) {
            _ = try BookmarkDocument(decoding: outside)
        }
        let longItem = Self.blob(items: [UInt32(1000).littleEndianBytes + UInt32(0x0101).littleEndianBytes], toc: [(0x1004, 4)])
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkDocument(decoding: longItem) }
        let badNumber = Self.blob(items: [Self.item(0x0303, [1, 2])], toc: [(0x1004, 4)])
        #expect(throws: BookmarkFormatError(.badItemLength(type: 0x0303, length: 2), at: 52)) {
            _ = try BookmarkDocument(decoding: badNumber)
        }
        let duplicate = Self.blob(items: [Self.item(0x0A01, [])], toc: [(0x1004, 4), (0x1004, 4)])
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkDocument(decoding: duplicate) }
        let keyNotString = Self.blob(items: [Self.item(0x0A01, [])], toc: [(0x8000_0004, 4)])
        #expect(throws: BookmarkFormatError.self) { _ = try BookmarkDocument(decoding: keyNotString) }
    }

    @Test func macAliasTOCSizeFieldIsAccepted() throws {
        // mac_alias writes 12n - 8 instead of Apple's 12n + 12; we ignore the field.
        var bytes = Self.blob(items: [Self.item(0x0101, Array("a".utf8))], toc: [(0x1004, 4)])
        let toc = 48 + Int(try ByteReader(bytes).u32le(48))
        bytes.replaceSubrange(toc..<(toc + 4), with: UInt32(4).littleEndianBytes)
        #expect(try BookmarkDocument(decoding: bytes)[.pathComponents] == .string("a"))
    }

    @Test func trailingBytesAreTolerated() throws {
        let bytes = try Fixtures.bytes("fq-sample2.book") + [1, 2, 3]
        #expect(try BookmarkRecord(decoding: bytes).path == "/Users/davidmcdonald/hxstore")
    }
}

