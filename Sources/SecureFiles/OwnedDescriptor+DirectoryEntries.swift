// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// One entry of a directory, as `getdents64(2)` reports it: no `stat` per entry.
public struct DirectoryEntry: Sendable, Hashable {
    /// The name as raw bytes (never `.` or `..`).
    public var name: [UInt8]
    /// The inode number (`d_ino`). On btrfs, a subvolume's root shows the parent's placeholder number.
    public var inode: UInt64
    /// The type from `d_type`; ``FileKind/unknown`` on file systems that do not fill it.
    public var kind: FileKind

    /// Creates an entry.
    package init(name: [UInt8], inode: UInt64, kind: FileKind) {
        self.name = name
        self.inode = inode
        self.kind = kind
    }

    /// The name as a one-component path.
    public var path: FilePath { FilePath(platformString: (name.map { CChar(bitPattern: $0) }) + [0]) }
}

extension Sys {
    /// getdents64(2).
    static func getdents(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
        return throughSeam("getdents64", descriptor: fd) { Glibc.getdents64(fd, base, buffer.count) }
    }
}

extension OwnedDescriptor {
    /// Calls `body` for each entry of this directory (opened for reading with ``OpenOptions/directory``,
    /// not ``OpenOptions/pathOnly``), in the order the file system returns them, until `body`
    /// returns `false`. `.` and `..` are skipped.
    ///
    /// - Throws: ``FileSystemError`` naming `getdents64`.
    ///
    /// Implementation details: `getdents64(2)` into a 32 KiB buffer; one call per buffer, no
    /// `stat` per entry. The directory offset advances: reading again needs a new descriptor.
    package func forEachDirectoryEntry(_ body: (DirectoryEntry) -> Bool) throws(FileSystemError) {
        // Not zero-filled: only the `count` bytes getdents64 wrote are read. (Zeroing 32 KiB per
        // directory was a third of a whole-volume walk's instructions.)
        var buffer = [UInt8](unsafeUninitializedCapacity: 32768) { _, initialized in initialized = 32768 }
        while true {
            let count = try using("getdents64") { fd in buffer.withUnsafeMutableBytes { Sys.getdents(fd, $0) } }
            if count <= 0 { return }
            var offset = 0
            while offset + 19 <= count {
                let inode = readLE64(buffer, offset)
                let length = Int(buffer[offset + 16]) | Int(buffer[offset + 17]) << 8
                guard length >= 19, offset + length <= count else { return }
                let type = buffer[offset + 18]
                var end = offset + 19
                while end < offset + length && buffer[end] != 0 { end += 1 }
                let start = offset + 19
                offset += length
                // "." and "..", checked before the name is copied.
                let nameLength = end - start
                if nameLength == 1, buffer[start] == 0x2E { continue }
                if nameLength == 2, buffer[start] == 0x2E, buffer[start + 1] == 0x2E { continue }
                let name = Array(buffer[start..<end])
                if !body(DirectoryEntry(name: name, inode: inode, kind: FileKind(directoryType: type))) { return }
            }
        }
    }

    /// All entries of this directory (see `forEachDirectoryEntry(_:)`), at most `limit`.
    public func directoryEntries(limit: Int = .max) throws(FileSystemError) -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        try forEachDirectoryEntry { entry in
            entries.append(entry)
            return entries.count < limit
        }
        return entries
    }
}

private func readLE64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}

extension FileKind {
    /// The kind for a `d_type` value (`DT_*`).
    public init(directoryType: UInt8) {
        switch directoryType {
        case 8: self = .regular
        case 4: self = .directory
        case 10: self = .symlink
        case 1: self = .fifo
        case 12: self = .socket
        case 2: self = .characterDevice
        case 6: self = .blockDevice
        default: self = .unknown
        }
    }
}
