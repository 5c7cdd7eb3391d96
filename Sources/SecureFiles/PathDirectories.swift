// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The directories on an absolute path, examined with one `statx` each, none through a symlink:
/// the cheapest examination of a path's ancestors that still tells a directory from a symlink
/// standing in its place.
///
/// A path lookup's fixed cost (copying the name in, starting the walk) is about twice that of a
/// `statx` on a descriptor, but opening each directory to get a descriptor costs more than both
/// (`openat`, then `close`); so each prefix is looked up from `/` with `AT_SYMLINK_NOFOLLOW`.
/// The buffer is the path itself with a NUL written over the `/` that ends each prefix in turn:
/// no allocation per directory.
package enum PathDirectories {
    /// Appends to `inodes` the inode number of `path[..<end]` for each `end` in `ends`, in order.
    ///
    /// - Parameters:
    ///   - path: An absolute path as raw bytes.
    ///   - ends: Where each prefix ends: at a `/` of `path` or at its end (`1...path.count`).
    ///   - inodes: Receives one inode number per prefix, until one fails.
    /// - Returns: `nil`, or the first failure: `ENOTDIR` when a prefix is not a directory (a
    ///   symlink included: it is never followed), `EINVAL` for a NUL byte in `path` or an end out
    ///   of range, else the `statx` errno (`ENOENT`, `EACCES`, …).
    ///
    /// Implementation details: `statx(AT_FDCWD, prefix, AT_SYMLINK_NOFOLLOW, STATX_TYPE |
    /// STATX_INO)` per prefix, through ``SyscallSeam``.
    package static func inodes(of path: [UInt8], prefixEnds ends: ArraySlice<Int>, into inodes: inout [UInt64]) -> Errno? {
        if ends.isEmpty { return nil }
        let count = path.count
        let hasNUL = path.withUnsafeBytes { raw in raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false }
        guard !hasNUL else { return .invalidArgument }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer -> Errno? in
            guard let base = buffer.baseAddress else { return .invalidArgument }
            path.withUnsafeBytes { source in
                if let from = source.baseAddress { memcpy(base, from, count) }
            }
            base[count] = 0
            let mask = CLS_STATX_TYPE | CLS_STATX_INO
            for end in ends {
                guard end > 0, end <= count else { return .invalidArgument }
                // Cut the path at this prefix's end, examine it, then put the separator back.
                let saved = base[end]
                base[end] = 0
                var raw = cls_statx()
                let result = Sys.statx(atCurrentDirectory, base, AT_SYMLINK_NOFOLLOW, mask, &raw)
                base[end] = saved
                if case .failure(let errno) = result { return errno }
                guard FileKind(mode: UInt32(raw.stx_mode)) == .directory else { return .notDirectory }
                inodes.append(raw.stx_ino)
            }
            return nil
        }
    }
}
