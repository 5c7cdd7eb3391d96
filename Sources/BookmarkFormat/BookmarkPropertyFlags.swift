// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the 24-byte resource and volume property words (0x1010, 0x2020).

/// The three little-endian 64-bit words of `resourceProps` (`0x1010`) and `volProps`
/// (`0x2020`): the flags, the mask of flags that are valid, and a third word whose meaning is
/// unknown (Apple writes the mask again in `suitableForBookmarkFile` bookmarks, `0x21a` in
/// others; readers should ignore it).
public struct BookmarkPropertyFlags: Sendable, Hashable {
    /// The flags that are set.
    public var flags: UInt64
    /// Which flags are meaningful.
    public var validMask: UInt64
    /// The third word, kept as read.
    public var extra: UInt64

    /// Creates property words.
    public init(flags: UInt64, validMask: UInt64, extra: UInt64 = 0) {
        self.flags = flags
        self.validMask = validMask
        self.extra = extra
    }

    /// Decodes 24 bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 24 else { return nil }
        flags = UInt64(littleEndianBytes: Array(bytes[0..<8]))
        validMask = UInt64(littleEndianBytes: Array(bytes[8..<16]))
        extra = UInt64(littleEndianBytes: Array(bytes[16..<24]))
    }

    /// The 24 bytes.
    public var bytes: [UInt8] {
        flags.littleEndianBytes + validMask.littleEndianBytes + extra.littleEndianBytes
    }

    /// Whether `flag` is valid and set.
    public func contains(_ flag: UInt64) -> Bool { flags & validMask & flag == flag }

    // MARK: - Resource flags (kCFURLResource…)

    /// Regular file.
    public static let isRegularFile: UInt64 = 0x1
    /// Directory.
    public static let isDirectory: UInt64 = 0x2
    /// Symbolic link.
    public static let isSymbolicLink: UInt64 = 0x4
    /// Volume root.
    public static let isVolume: UInt64 = 0x8
    /// Package.
    public static let isPackage: UInt64 = 0x10
    /// System immutable.
    public static let isSystemImmutable: UInt64 = 0x20
    /// User immutable.
    public static let isUserImmutable: UInt64 = 0x40
    /// Hidden.
    public static let isHidden: UInt64 = 0x80
    /// Extension hidden.
    public static let hasHiddenExtension: UInt64 = 0x100
    /// Application.
    public static let isApplication: UInt64 = 0x200
    /// Compressed.
    public static let isCompressed: UInt64 = 0x400
    /// Extension can be hidden.
    public static let canSetHiddenExtension: UInt64 = 0x800
    /// Readable.
    public static let isReadable: UInt64 = 0x1000
    /// Writable.
    public static let isWriteable: UInt64 = 0x2000
    /// Executable.
    public static let isExecutable: UInt64 = 0x4000
    /// Alias file.
    public static let isAliasFile: UInt64 = 0x8000
    /// Mount trigger.
    public static let isMountTrigger: UInt64 = 0x10000

    // MARK: - Volume flags (kCFURLVolume…)

    /// Local volume.
    public static let volumeIsLocal: UInt64 = 0x1
    /// Automounted.
    public static let volumeIsAutomount: UInt64 = 0x2
    /// Read-only.
    public static let volumeIsReadOnly: UInt64 = 0x8
    /// Ejectable.
    public static let volumeIsEjectable: UInt64 = 0x20
    /// Removable.
    public static let volumeIsRemovable: UInt64 = 0x40
    /// Internal.
    public static let volumeIsInternal: UInt64 = 0x80
    /// External.
    public static let volumeIsExternal: UInt64 = 0x100
    /// Disk image.
    public static let volumeIsDiskImage: UInt64 = 0x200
    /// Supports persistent file IDs.
    public static let volumeSupportsPersistentIDs: UInt64 = 0x1_0000_0000
}
