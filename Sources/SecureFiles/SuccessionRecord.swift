// SPDX-License-Identifier: Apache-2.0

/// What a save that replaced an object at its path records on the new object: the identities of
/// the objects it replaced, newest first, in the extended attribute `user.swift-bookmarks.replaces`.
///
/// A package saved atomically gets a new inode at every save. A bookmark made before the save still
/// names the old inode; when the object now at its path says it replaced that inode, resolution
/// knows it is the same document saved again, not a stranger (`MatchKind.savedInPlace`, not stale).
/// The record names inodes by number and birth time, so a reused inode number never matches.
///
/// Layout: one version byte (1), one count byte, then per object its inode (8 bytes), birth time
/// seconds (8) and nanoseconds (4), all little-endian. At most ``limit`` objects are kept.
public enum SuccessionRecord {
    /// The extended attribute's name.
    public static let attributeName = "user.swift-bookmarks.replaces"
    /// How many predecessors are kept (the newest).
    public static let limit = 16

    /// One replaced object.
    public struct Predecessor: Sendable, Hashable {
        /// Its inode number.
        public var inode: UInt64
        /// Its birth time.
        public var birthTime: Timestamp

        /// Creates a predecessor.
        public init(inode: UInt64, birthTime: Timestamp) {
            self.inode = inode
            self.birthTime = birthTime
        }
    }

    /// The attribute's bytes for these predecessors (the first `limit`).
    public static func encode(_ predecessors: [Predecessor]) -> [UInt8] {
        let kept = predecessors.prefix(limit)
        var bytes: [UInt8] = [1, UInt8(kept.count)]
        for entry in kept {
            withUnsafeBytes(of: entry.inode.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: entry.birthTime.seconds.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: entry.birthTime.nanoseconds.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// The predecessors in an attribute's bytes; empty for anything malformed.
    public static func decode(_ bytes: [UInt8]) -> [Predecessor] {
        guard bytes.count >= 2, bytes[0] == 1 else { return [] }
        let count = Int(bytes[1])
        guard count <= limit, bytes.count == 2 + count * 20 else { return [] }
        func integer<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            var value: T = 0
            for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
            return value
        }
        return (0..<count).compactMap { index in
            let base = 2 + index * 20
            let nanoseconds = integer(base + 16, UInt32.self)
            guard nanoseconds < 1_000_000_000 else { return nil }
            return Predecessor(
                inode: integer(base, UInt64.self),
                birthTime: Timestamp(seconds: Int64(bitPattern: integer(base + 8, UInt64.self)), nanoseconds: nanoseconds))
        }
    }
}
