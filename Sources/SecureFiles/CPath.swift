// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` with `name` as a NUL-terminated C string in a stack buffer (no heap allocation).
/// The caller has checked that `name` holds no NUL.
func withCName<T>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
    withCName(name[...], body)
}

/// `withCName` for part of a path (its tail below a directory, say), not copied first.
func withCName<T>(_ name: ArraySlice<UInt8>, _ body: (UnsafePointer<CChar>) -> T) -> T {
    let count = name.count
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
        guard let base = buffer.baseAddress else { return "".withCString(body) }
        name.withUnsafeBytes { source in
            if let from = source.baseAddress { memcpy(base, from, count) }
        }
        base[count] = 0
        return body(UnsafePointer(base))
    }
}

/// Runs `body` with a path as a C string, or fails with `EINVAL` when it holds a NUL byte
/// (truncating there would name another file).
///
/// Hot paths (resolving thousands of bookmarks) use this instead of `FilePath`: every `FilePath`
/// initialiser normalises separators, which profiled at a quarter of an unmoved resolution.
func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Result<R, Errno>) -> Result<R, Errno> {
    withCPath(path[...], body)
}

/// `withCPath` for part of a path, not copied first.
func withCPath<R>(_ path: ArraySlice<UInt8>, _ body: (UnsafePointer<CChar>) -> Result<R, Errno>) -> Result<R, Errno> {
    let hasNUL = path.withUnsafeBytes { raw in raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false }
    if hasNUL { return .failure(.invalidArgument) }
    return withCName(path, body)
}
