// SPDX-License-Identifier: Apache-2.0
// The quick view reads a few items straight from the bytes; whenever it answers, the answer must
// be the one full decoding gives.
import BookmarkFormat
import Testing
import VolumeFixtures

@Suite("The quick view of stored bookmark data")
struct QuickViewTests {
    /// What the quick view reads, from a fully decoded record.
    static func expected(_ record: BookmarkRecord) -> (path: [UInt8], inode: UInt64?, uuid: [UInt8]?, volumePath: [UInt8]?,
                                                         volumeName: [UInt8]?, linux: LinuxFileFacts)
    {
        var path: [UInt8] = []
        for component in record.pathComponents ?? [] { path += [UInt8(ascii: "/")] + component.bytes }
        if path.isEmpty { path = [UInt8(ascii: "/")] }
        let inode = record.fileID.map { UInt64(bitPattern: $0) } ?? record.fileIDs?.last.flatMap { $0.map { UInt64(bitPattern: $0) } }
        let volume = record.volumeIdentity
        return (path, inode, volume.uuid.map { Array($0.utf8) }, volume.path?.bytes, volume.name?.bytes, perFile(record.linux))
    }

    /// The per-file facts (the quick view need not read the volume's).
    static func perFile(_ facts: LinuxFileFacts) -> LinuxFileFacts {
        var facts = facts
        facts.volumeUUIDSource = nil
        facts.fsType = nil
        facts.fsid = nil
        return facts
    }

    static func check(_ bytes: [UInt8], _ full: BookmarkRecord) -> Bool {
        guard let quick = bytes.withUnsafeBytes({ BookmarkQuickView($0) }) else { return false }
        let want = expected(full)
        #expect(quick.path == want.path)
        #expect(quick.inode == want.inode)
        // Full decoding reads the UUID as text (nil when it is not UTF-8); the batch validates the
        // quick view's bytes the same way before it looks the volume up.
        #expect(quick.volumeUUID.flatMap { String(validating: $0, as: UTF8.self) }.map { Array($0.utf8) } == want.uuid)
        #expect(quick.volumePath == want.volumePath)
        #expect(quick.volumeName == want.volumeName)
        #expect(perFile(quick.linux) == want.linux)
        // Without copies: the same strings, where the spans say.
        let spans = bytes.withUnsafeBytes { raw -> [[UInt8]?]? in
            guard let bare = BookmarkQuickView(raw, copyingVolumeStrings: false) else { return nil }
            #expect(bare.volumeUUID == nil && bare.volumePath == nil && bare.volumeName == nil)
            return [bare.volumeUUIDSpan, bare.volumePathSpan, bare.volumeNameSpan].map { span in span.map { Array(raw[$0]) } }
        }
        #expect(spans == [quick.volumeUUID, quick.volumePath, quick.volumeName])
        return true
    }

    /// Where a single resolution looks for the object with the volume mounted at `mountPoint`
    /// (`Recorded.rerooted`'s rule), from a fully decoded record.
    static func rerooted(_ full: BookmarkRecord, at mountPoint: [UInt8]) -> [UInt8] {
        let want = expected(full)
        guard let relative = want.linux.mountRelativePath?.bytes else { return want.path }
        if mountPoint == [UInt8(ascii: "/")] { return relative }
        return relative == [UInt8(ascii: "/")] ? mountPoint : mountPoint + relative
    }

    static let mountPoints: [[UInt8]] = ["/", "/mnt/volume", "/a"].map { Array($0.utf8) }

    /// The spans' paths against full decoding's: the recorded path, the mount-relative path, and
    /// the path under each of ``mountPoints``.
    static func checkPaths(_ bytes: [UInt8], _ full: BookmarkRecord) {
        bytes.withUnsafeBytes { raw in
            guard let spans = BookmarkQuickSpans(raw) else { return }
            let recorded = expected(full).path
            #expect(spans.joinedPath(raw) == recorded)
            #expect(spans.mountRelativePath(raw) == expected(full).linux.mountRelativePath?.bytes)
            // Also the record's own leading components, where a library's records mostly are: the
            // re-rooted path is then the recorded one.
            let components = full.pathComponents ?? []
            let own = components.count < 2 ? [] : [components.dropLast().flatMap { [UInt8(ascii: "/")] + $0.bytes }]
            for mountPoint in mountPoints + own {
                let want = rerooted(full, at: mountPoint)
                let got = spans.currentPath(raw, mountPoint: mountPoint)
                #expect(got?.path == want, "under \(String(decoding: mountPoint, as: UTF8.self))")
                #expect(got?.sameAsRecorded == (want == recorded))
            }
            #expect(spans.isRecordedPath(raw, recorded))
            // One byte changed, one more or one fewer: not the recorded path.
            var other = recorded
            other[other.count - 1] ^= 0x01
            #expect(!spans.isRecordedPath(raw, other))
            #expect(!spans.isRecordedPath(raw, recorded + [UInt8(ascii: "x")]))
            #expect(!spans.isRecordedPath(raw, Array(recorded.dropLast())))
        }
    }

    @Test("the path under a mount point, made from the spans in one allocation: the one a single resolution looks at")
    func currentPaths() throws {
        var checked = 0
        for seed in 0..<300 as Range<UInt64> {
            var record = RandomRecords.record(seed: seed, interop: false)
            let components = record.pathComponents ?? []
            // No mount-relative path, one stored as a count of trailing components (none, one, all),
            // or as bytes.
            let relative: ByteString?
            switch seed % 5 {
            case 0: relative = nil
            case 1: relative = components.isEmpty ? "/" : ByteString(bytes: [UInt8(ascii: "/")] + components.last!.bytes)
            case 2: relative = "/"
            case 3: relative = ByteString(bytes: components.flatMap { [UInt8(ascii: "/")] + $0.bytes })
            default: relative = "/elsewhere/x"
            }
            try record.setLinuxFacts(LinuxFileFacts(
                generation: seed, handleType: 1, handle: [1, 2, 3], birthTime: LinuxTimestamp(seconds: Int64(seed), nanoseconds: 5),
                volumeUUIDSource: .ext4Ioctl, mountRelativePath: relative, fsType: "ext4"))
            let bytes = try record.encoded()
            guard bytes.withUnsafeBytes({ BookmarkQuickSpans($0) }) != nil else { continue }
            Self.checkPaths(bytes, try BookmarkRecord(decoding: bytes))
            checked += 1
        }
        #expect(checked > 150, "\(checked) of 300 read")
    }

    @Test("random records with our Linux facts (compact, path as a component count or as bytes): the same facts")
    func randomRecords() throws {
        var answered = 0
        for seed in 0..<300 as Range<UInt64> {
            var record = RandomRecords.record(seed: seed, interop: false)
            let components = record.pathComponents ?? []
            // A mount-relative path that is a suffix of the path (stored as a count) or not (bytes).
            let relative: ByteString = seed % 2 == 0 && !components.isEmpty
                ? ByteString(bytes: [UInt8(ascii: "/")] + components.last!.bytes) : "/elsewhere/x"
            try record.setLinuxFacts(LinuxFileFacts(
                generation: seed, handleType: 1, handle: [1, 2, 3], birthTime: LinuxTimestamp(seconds: Int64(seed), nanoseconds: 5),
                subvolumeID: seed % 3 == 0 ? 256 : nil, volumeUUIDSource: .ext4Ioctl, mountRelativePath: relative,
                fsType: "ext4", fsid: LinuxFSID(1, 2)))
            let bytes = try record.encoded()
            if Self.check(bytes, try BookmarkRecord(decoding: bytes)) { answered += 1 }
        }
        // Random records hold items of every type, so some fall outside the plain layout; most must not.
        #expect(answered > 150, "\(answered) of 300 answered")
    }

    @Test("a bookmark written by 0.1 (nine string keys): the same facts")
    func legacy() throws {
        let bytes = LegacyBookmark.bytes
        #expect(Self.check(bytes, try BookmarkRecord(decoding: bytes)))
    }

    @Test("mutated bytes: never a trap, and an answer agrees with full decoding wherever that succeeds")
    func mutations() throws {
        var record = RandomRecords.record(seed: 7, interop: false)
        try record.setLinuxFacts(LinuxFileFacts(generation: 3, handleType: 1, handle: [9, 9], birthTime: LinuxTimestamp(seconds: 1, nanoseconds: 2)))
        let original = try record.encoded()
        var random = SplitMix(seed: 99)
        var compared = 0
        for _ in 0..<5000 {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 3)) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            if Int(random.next() % 10) == 0 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count)))) }
            let quick = bytes.withUnsafeBytes { BookmarkQuickView($0) }
            if quick != nil, let full = try? BookmarkRecord(decoding: bytes) {
                _ = Self.check(bytes, full)
                Self.checkPaths(bytes, full)
                compared += 1
            }
        }
        #expect(compared > 100)
    }
}
