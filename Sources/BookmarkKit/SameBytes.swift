#if canImport(Glibc)
    import Glibc
#endif

/// Whether two byte strings (paths) are equal, with one `memcmp`.
///
/// `Array ==` compares element by element; on the resolution of an unmoved bookmark, where every
/// path is compared with the recorded one, that loop profiled at a sixth of the instructions.
func sameBytes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in
            guard let l = left.baseAddress, let r = right.baseAddress else { return true }
            return memcmp(l, r, left.count) == 0
        }
    }
}

/// A normal absolute path (no `//`, no trailing `/`) split at its last `/`: the parent's bytes
/// (empty for a child of `/`) and the name, as slices of `path` (no copies).
func splitLast(_ path: [UInt8]) -> (parent: ArraySlice<UInt8>, name: ArraySlice<UInt8>) {
    guard let cut = path.lastIndex(of: UInt8(ascii: "/")) else { return (path[0..<0], path[...]) }
    return (path[..<cut], path[(cut + 1)...])
}
