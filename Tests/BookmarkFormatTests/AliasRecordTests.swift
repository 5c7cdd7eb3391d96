// SPDX-License-Identifier: Apache-2.0
// Legacy `alis` records (v2 and v3, standalone and embedded at 0xFE00), FinderInfo.
import BookmarkFormat
import Foundation
import Testing

@Suite("Alias records and Finder info")
struct AliasRecordTests {
    /// A version-3 record written by hand from the documented layout (not by our encoder).
    static func handMadeV3() -> [UInt8] {
        var w = ByteWriter()
        w.bytes = [0, 0, 0, 0]
        w.u16be(0)  // size, patched
        w.u16be(3)
        w.u16be(0)  // kind: file
        w.u64be(UInt64(3_700_000_000) << 16 | 0x8000)  // volume date, 1/65536 s since 1904
        w.bytes += Array("H+\0\0".utf8)
        w.u16be(0)  // disk type
        w.u32be(100)  // parent CNID
        w.u32be(101)  // target CNID
        w.u64be(UInt64(3_600_000_000) << 16)  // creation date
        w.u32be(0)  // volume attributes
        w.bytes += [UInt8](repeating: 0, count: 14)
        func tag(_ t: Int16, _ d: [UInt8]) {
            w.u16be(UInt16(bitPattern: t)); w.u16be(UInt16(d.count)); w.bytes += d; w.pad(to: 2)
        }
        tag(14, AliasRecord.encodeUTF16Counted("file.txt"))
        tag(15, AliasRecord.encodeUTF16Counted("Data"))
        tag(18, Array("/Users/me/file.txt".utf8))
        tag(19, Array("/Volumes/Data".utf8))
        tag(1, [0, 0, 0, 100, 0, 0, 0, 50])
        tag(0, Array("me".utf8))  // odd-free; padding exercised by 'file.txt' path? no: 3 bytes below
        tag(21, [0, 9])
        tag(99, [1, 2, 3])  // unknown tag, odd length: padded
        w.u16be(0xFFFF); w.u16be(0)
        w.setU16be(UInt16(w.bytes.count), at: 4)
        return w.bytes
    }

    @Test func decodesVersion3() throws {
        let bytes = Self.handMadeV3()
        let a = try AliasRecord(decoding: bytes)
        #expect(a.version == 3)
        #expect(a.parentCNID == 100)
        #expect(a.targetCNID == 101)
        #expect(a.unicodeFileName == "file.txt")
        #expect(a.unicodeVolumeName == "Data")
        #expect(a.posixPath == "/Users/me/file.txt")
        #expect(a.posixMountPoint == "/Volumes/Data")
        #expect(a.cnidPath == [100, 50])
        #expect(a.userHomePrefixLength == 9)
        #expect(a.tagData(99) == [1, 2, 3])
        #expect(a.volumeCreationDate.raw == UInt64(3_700_000_000) << 16 | 0x8000)
        #expect(a.volumeCreationDate.bookmarkDate.secondsSinceReferenceDate == 3_700_000_000.5 - 3_061_152_000)
        #expect(try a.encoded() == bytes)
    }

    @Test func version3BecomesATypedRecord() throws {
        let bytes = Self.handMadeV3()
        let source = try BookmarkSource(decoding: bytes)
        #expect(source.container == .aliasRecord)
        let r = source.record
        #expect(r.path == "/Volumes/Data/Users/me/file.txt")
        #expect(r.fileIDs == [nil, nil, nil, 100, 101])
        #expect(r.fileID == 101)
        #expect(r.fileName == "file.txt")
        #expect(r.volume.name == "Data")
        #expect(r.volume.path == "/Volumes/Data")
        #expect(r.volume.url == "file:///Volumes/Data/")
        #expect(r.creationDate == BookmarkDate(secondsSinceReferenceDate: 538_848_000))
        #expect(r.aliasData == bytes)
        // Base64 text of the same record is recognised too.
        let b64 = try BookmarkSource(decoding: Array(Data(bytes).base64EncodedString().utf8))
        #expect(b64.wasBase64)
        #expect(b64.record == r)
    }

    @Test func version2RoundTrips() throws {
        var a = AliasRecord(version: 2, kind: 1)
        a.volumeName = Array("Macintosh HD".utf8)
        a.targetName = Array("Caf".utf8) + [0x8E]  // "Café" in Mac OS Roman
        a.volumeCreationDate = AliasTimestamp(seconds1904: 3_500_000_000)
        a.creationDate = AliasTimestamp(seconds1904: 3_600_000_000)
        a.parentCNID = 2
        a.targetCNID = 1234
        a.fileCreator = Array("MACS".utf8)
        a.fileType = Array("fold".utf8)
        a.setTag(AliasRecord.TagNumber.posixPath, Array("/Café".utf8))
        let bytes = try a.encoded()
        #expect(bytes.count == 150 + 4 + 6 + 4)
        let b = try AliasRecord(decoding: bytes)
        #expect(b == a)
        #expect(b.displayTargetName == "Café")
        let r = BookmarkRecord(aliasRecord: b)
        #expect(r.path == "/Café")
        #expect(r.fileIDs == [1234])
        #expect(r.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) == true)
        #expect(r.volume.name == "Macintosh HD")
    }

    @Test func embeddedAliasDataIsDecoded() throws {
        var record = try Fixtures.record("fq-sample1.book")
        record.aliasData = Self.handMadeV3()
        let bytes = try record.encoded()
        let source = try BookmarkSource(decoding: bytes)
        #expect(source.aliasRecord?.targetCNID == 101)
        #expect(try source.record.embeddedAliasRecord()?.unicodeFileName == "file.txt")
        // A broken embedded record is reported, not fatal.
        record.aliasData = [0, 0, 0, 0, 0, 200, 0, 3]
        let broken = try BookmarkSource(decoding: record.encoded())
        #expect(broken.aliasRecord == nil)
        #expect(broken.aliasRecordError != nil)
    }

    @Test func hostileAliasRecords() throws {
        let good = Self.handMadeV3()
        for n in 0..<good.count {
            #expect(throws: BookmarkFormatError.self) { _ = try AliasRecord(decoding: Array(good[0..<n])) }
        }
        var badVersion = good
        badVersion[7] = 4
        #expect(throws: BookmarkFormatError(.unsupportedAliasVersion(4), at: 6)) { _ = try AliasRecord(decoding: badVersion) }
        var longTag = good
        longTag[61] = 0xFF  // first tag's length
        #expect(throws: BookmarkFormatError.self) { _ = try AliasRecord(decoding: longTag) }
    }

    @Test func finderInfo() throws {
        let info = FinderInfo.alias(toFolder: false)
        let bytes = info.encoded
        #expect(bytes.count == 32)
        #expect(Array(bytes[0..<8]) == Array("alisMACS".utf8))
        #expect(bytes[8] == 0x80 && bytes[9] == 0)
        let back = try FinderInfo(decoding: bytes)
        #expect(back.isAlias && !back.isFolderAlias)
        #expect(back == info)
        let folder = try FinderInfo(decoding: FinderInfo.alias(toFolder: true).encoded)
        #expect(folder.isFolderAlias && folder.fileType == Array("fdrp".utf8))
        #expect(throws: BookmarkFormatError.self) { _ = try FinderInfo(decoding: [1, 2, 3]) }
    }

    @Test func aliasFileContainer() throws {
        let record = try Fixtures.record("fq-sample2.book")
        let file = try AliasFile(record: record).encoded()
        #expect(Array(file[0..<16]) == AliasFile.magic)
        let r = ByteReader(file)
        #expect(try r.u32le(16) == 56)
        #expect(try r.u32le(20) == 56)
        #expect(try r.u32le(24) == UInt32(file.count - 56))
        #expect(try r.u32le(28) == 0x1004_0000)
        #expect(try BookmarkSource(decoding: file).record == record)
        // Its data section is the bookmark's, offsets unchanged.
        #expect(Array(file[56...]) == Array(try record.encoded()[48...]))
    }
}
