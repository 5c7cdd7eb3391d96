// SPDX-License-Identifier: Apache-2.0
import Digests
import SecureFiles

/// Content digests of open files, read in 1 MiB chunks (no file is held in memory whole).
enum FileDigest {
    /// The SHA-256 of the file's bytes from its current offset to its end.
    static func sha256(of file: OwnedDescriptor) throws(FileSystemError) -> [UInt8] {
        var hasher = SHA256Hasher()
        while true {
            let chunk = try file.readPrefix(1 << 20)
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { hasher.update($0) }
            if chunk.count < 1 << 20 { break }
        }
        return hasher.finalize()
    }
}
