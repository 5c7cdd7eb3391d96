// SPDX-License-Identifier: Apache-2.0

/// The directories on a canonical absolute directory path, `/` first, as the ancestor cache goes
/// through them: where each one's path ends, and a 64-bit hash of that path. One scan of the path,
/// no array per directory.
///
/// The hashes only say which directories were met before (``AncestorCache``'s policy of watching a
/// directory the second time a creation meets it). Two paths with one hash make a directory look
/// met when it was not, which only watches it one creation early; nothing that decides what a
/// bookmark records depends on them.
struct DirectoryPrefixes {
    /// `path[..<ends[i]]` is the `i`th directory: `ends[0]` is 1 (`/`), the last is the path's length.
    let ends: [Int]
    /// FNV-1a of each of those prefixes.
    let hashes: [UInt64]

    /// - Parameter path: A canonical absolute directory path (`/`, or no empty, `.` or `..`
    ///   components and no trailing `/`).
    init(_ path: [UInt8]) {
        var ends: [Int] = []
        var hashes: [UInt64] = []
        ends.reserveCapacity(16)
        hashes.reserveCapacity(16)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        path.withUnsafeBufferPointer { bytes in
            for (index, byte) in bytes.enumerated() {
                // A `/` ends the prefix before it (the root's own `/` ends nothing).
                if byte == UInt8(ascii: "/"), index > 0 {
                    ends.append(index)
                    hashes.append(hash)
                }
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
                if index == 0 {
                    ends.append(1)
                    hashes.append(hash)
                }
            }
        }
        if let last = ends.last, last < path.count {
            ends.append(path.count)
            hashes.append(hash)
        }
        self.ends = ends
        self.hashes = hashes
    }

    /// How many directories, `/` included.
    var count: Int { ends.count }
}
