// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: where the quick check's facts lie in one record, found without copying any.

/// The per-file Linux facts a quick check needs, with the handle and a mount-relative path left
/// where they lie in the record (positions in the bytes read).
package struct QuickFileFacts: Sendable, Equatable {
    /// How the path below the volume's mount point is recorded.
    package enum MountRelative: Sendable, Equatable {
        /// The last `count` components of the recorded path.
        case trailing(UInt64)
        /// Its own bytes, here.
        case bytes(Range<Int>)
    }

    package var generation: UInt64?
    package var handleType: Int32?
    /// Where the file handle's bytes are.
    package var handle: Range<Int>?
    package var birthTime: LinuxTimestamp?
    package var subvolumeID: UInt64?
    package var mountRelative: MountRelative?

    package init() {}
}

/// Where the items an unmoved file's check needs lie in one record: the path, the inode, the
/// volume's UUID, path and name, and the per-file Linux facts. Nothing is copied: a batch reads
/// a million records, and each copy was an allocation.
///
/// ``BookmarkQuickView`` is these facts copied out. Both read the same records the same way: the
/// plain layout our encoder and Apple's write, every item read bounds-checked, `nil` at the first
/// thing outside it (the caller then decodes the bookmark in full).
package struct BookmarkQuickSpans: Sendable {
    /// `0x1030`, else the last of `0x1005`.
    package var inode: UInt64?
    /// Where `0x2011` (the volume UUID), `0x2002` (its path) and `0x2010` (its name) are.
    package var volumeUUIDSpan: Range<Int>?
    package var volumePathSpan: Range<Int>?
    package var volumeNameSpan: Range<Int>?
    /// Whether the bookmark records a relative location (`0x1055`).
    package var isRelative = false
    /// The per-file Linux facts (the volume's own are not read).
    package var file = QuickFileFacts()
    /// The path array (`0x1004`), checked.
    let path: QuickPath

    /// Reads `bytes`; `nil` when they are not the plain layout.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard let view = QuickReader(bytes), let toc = view.targetTOC() else { return nil }
        var pathOffset: UInt32?
        var compactOffset: UInt32?
        var fileIDsOffset: UInt32?
        var fileIDOffset: UInt32?
        var legacy = QuickFileFacts()
        for entry in 0..<toc.count {
            let at = toc.entries + 12 * entry
            guard let key = view.word(at), let item = view.word(at + 4) else { return nil }
            if key & 0x8000_0000 != 0 {
                if view.isCompactKey(key & 0x7FFF_FFFF) {
                    compactOffset = item
                } else {
                    guard view.readLinuxKey(named: key & 0x7FFF_FFFF, item: item, into: &legacy) else { return nil }
                }
                continue
            }
            switch key {
            case 0x1004: pathOffset = item
            case 0x1005: fileIDsOffset = item
            case 0x1030: fileIDOffset = item
            case 0x1055: isRelative = true
            case 0x2002:
                guard let span = view.stringSpan(item) else { return nil }
                volumePathSpan = span
            case 0x2010:
                guard let span = view.stringSpan(item) else { return nil }
                volumeNameSpan = span
            case 0x2011:
                guard let span = view.stringSpan(item) else { return nil }
                volumeUUIDSpan = span
            default: break
            }
        }
        guard let pathOffset, let path = view.pathArray(pathOffset) else { return nil }
        self.path = path
        // The compact item wins over the 0.1 keys, as in full decoding; one it cannot read sends
        // the record to full decoding.
        if let compactOffset {
            guard let (type, payload, length) = view.item(compactOffset), type == BookmarkItem.TypeCode.data,
                let facts = try? CompactLinuxFacts.fileFactSpans(
                    UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + length]), base: payload)
            else { return nil }
            // A count of trailing components is a suffix of the joined path only when no component
            // is empty or holds a slash, and there are that many.
            if case .trailing(let count) = facts.mountRelative, !path.plain || count > UInt64(max(path.count, 1)) {
                return nil
            }
            file = facts
        } else {
            file = legacy
        }
        if let fileIDOffset {
            guard let value = view.integer(fileIDOffset) else { return nil }
            inode = UInt64(bitPattern: value)
        } else if let fileIDsOffset {
            guard let last = view.lastInteger(fileIDsOffset) else { return nil }
            inode = last.map { UInt64(bitPattern: $0) }
        }
    }
}

extension BookmarkQuickSpans {
    /// The recorded path: `/`, then the components joined by `/` (`/` alone for none). `bytes` are
    /// the record these spans were read from.
    package func joinedPath(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let view = QuickReader(bytes) else { return nil }
        return Self.building(path.length) { out in
            var at = 0
            out[0] = UInt8(ascii: "/")
            for index in 0..<path.count {
                guard let component = view.component(path, index), at + 1 + component.count <= out.count else { return false }
                out[at] = UInt8(ascii: "/")
                Self.copy(component, to: out, at: at + 1)
                at += 1 + component.count
            }
            return true
        }
    }

    /// The path below the volume's mount point, as recorded: `nil` when the bookmark records none.
    package func mountRelativePath(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        switch file.mountRelative {
        case nil: return nil
        case .bytes(let span): return Array(UnsafeRawBufferPointer(rebasing: bytes[span]))
        case .trailing(let count): return rerooted(bytes, at: [UInt8(ascii: "/")], trailing: count)
        }
    }

    /// Where the recorded object is with its volume mounted at `mountPoint`: the mount-relative
    /// path under `mountPoint` (`mountPoint` alone for `/`; the relative path alone under `/`),
    /// or the recorded path when none is recorded; made in one allocation. `sameAsRecorded` says
    /// whether it equals ``joinedPath(_:)``, compared where the components lie.
    package func currentPath(_ bytes: UnsafeRawBufferPointer, mountPoint: [UInt8])
        -> (path: [UInt8], sameAsRecorded: Bool)?
    {
        let current: [UInt8]?
        switch file.mountRelative {
        case nil: return joinedPath(bytes).map { ($0, true) }
        case .bytes(let span):
            let relative = UnsafeRawBufferPointer(rebasing: bytes[span])
            if Self.isRoot(mountPoint) {
                current = Array(relative)
            } else if relative.count == 1, relative.first == UInt8(ascii: "/") {
                current = mountPoint
            } else {
                current = Self.building(mountPoint.count + relative.count) { out in
                    mountPoint.withUnsafeBytes { Self.copy($0, to: out, at: 0) }
                    Self.copy(relative, to: out, at: mountPoint.count)
                    return true
                }
            }
        case .trailing(let count): current = rerooted(bytes, at: mountPoint, trailing: count)
        }
        guard let current else { return nil }
        return (current, isRecordedPath(bytes, current))
    }

    /// `mountPoint` and the last `count` components (checked in ``init(_:)``: the path is plain
    /// and has them), with the rule of ``currentPath(_:mountPoint:)`` for `/`.
    private func rerooted(_ bytes: UnsafeRawBufferPointer, at mountPoint: [UInt8], trailing count: UInt64) -> [UInt8]? {
        guard let view = QuickReader(bytes) else { return nil }
        let first = path.count - Int(min(count, UInt64(path.count)))
        if first == path.count { return mountPoint }
        let atRoot = Self.isRoot(mountPoint)
        var length = atRoot ? 0 : mountPoint.count
        for index in first..<path.count {
            guard let component = view.component(path, index) else { return nil }
            length += 1 + component.count
        }
        return Self.building(length) { out in
            var at = 0
            if !atRoot {
                mountPoint.withUnsafeBytes { Self.copy($0, to: out, at: 0) }
                at = mountPoint.count
            }
            for index in first..<path.count {
                guard let component = view.component(path, index), at + 1 + component.count <= out.count else { return false }
                out[at] = UInt8(ascii: "/")
                Self.copy(component, to: out, at: at + 1)
                at += 1 + component.count
            }
            return true
        }
    }

    /// Whether `candidate` is the joined recorded path, compared component by component where
    /// they lie.
    package func isRecordedPath(_ bytes: UnsafeRawBufferPointer, _ candidate: [UInt8]) -> Bool {
        guard candidate.count == path.length, let view = QuickReader(bytes) else { return false }
        if path.count == 0 { return candidate == [UInt8(ascii: "/")] }
        return candidate.withUnsafeBytes { out in
            var at = 0
            for index in 0..<path.count {
                guard let component = view.component(path, index), at + 1 + component.count <= out.count,
                    out[at] == UInt8(ascii: "/"),
                    RawBytes.equal(UnsafeRawBufferPointer(rebasing: out[at + 1..<at + 1 + component.count]), component)
                else { return false }
                at += 1 + component.count
            }
            return at == out.count
        }
    }

    private static func isRoot(_ mountPoint: [UInt8]) -> Bool {
        mountPoint.count == 1 && mountPoint.first == UInt8(ascii: "/")
    }

    /// An array of exactly `count` bytes that `fill` writes every one of; `nil` when `fill` fails.
    private static func building(_ count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Bool) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failed = !fill(UnsafeMutableRawBufferPointer(buffer))
            initialized = failed ? 0 : count
        }
        return failed ? nil : bytes
    }

    private static func copy(_ source: UnsafeRawBufferPointer, to out: UnsafeMutableRawBufferPointer, at offset: Int) {
        guard let from = source.baseAddress, let to = out.baseAddress, !source.isEmpty else { return }
        (to + offset).copyMemory(from: from, byteCount: source.count)
    }
}
