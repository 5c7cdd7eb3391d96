// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

extension OwnedDescriptor {
    /// The value of extended attribute `name`, or `nil` when the object has no such attribute.
    ///
    /// - Throws: ``FileSystemError`` naming `fgetxattr` for any other failure (`EOPNOTSUPP` where
    ///   the file system has no xattrs).
    ///
    /// The corresponding C function is `fgetxattr`.
    public func extendedAttribute(_ name: String) throws(FileSystemError) -> [UInt8]? {
        var capacity = 256
        while capacity <= 1 << 20 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let result: Result<Int, Errno> = name.withCString { cName in
                guard let fd = rawValue else { return .failure(.badFileDescriptor) }
                return buffer.withUnsafeMutableBytes { Sys.fgetxattr(fd, cName, $0) }
            }
            switch result {
            case .success(let count): return Array(buffer.prefix(count))
            case .failure(.noData): return nil  // no such attribute
            case .failure(.outOfRange): capacity *= 16  // ERANGE: grow and retry
            case .failure(let errno): throw FileSystemError(syscall: "fgetxattr", errno: errno, path: openedPath)
            }
        }
        throw FileSystemError(syscall: "fgetxattr", errno: .outOfRange, path: openedPath)
    }

    /// Whether `setExtendedAttribute` may create, replace, or do either.
    package enum AttributeDisposition: Sendable {
        /// Create or replace.
        case any
        /// Fail with `EEXIST` if it exists (`XATTR_CREATE`).
        case createOnly
        /// Fail with `ENODATA` if it does not exist (`XATTR_REPLACE`).
        case replaceOnly
    }

    /// Sets extended attribute `name` to `value`.
    ///
    /// The corresponding C function is `fsetxattr`.
    package func setExtendedAttribute(_ name: String, to value: [UInt8], disposition: AttributeDisposition = .any)
        throws(FileSystemError)
    {
        let flags: CInt
        switch disposition {
        case .any: flags = 0
        case .createOnly: flags = CLS_XATTR_CREATE
        case .replaceOnly: flags = CLS_XATTR_REPLACE
        }
        _ = try using("fsetxattr") { fd in
            name.withCString { cName in value.withUnsafeBytes { Sys.fsetxattr(fd, cName, $0, flags) } }
        }
    }

    /// The names of the object's extended attributes, as raw bytes.
    ///
    /// The corresponding C function is `flistxattr`.
    public func extendedAttributeNames() throws(FileSystemError) -> [[UInt8]] {
        var buffer = [CChar](repeating: 0, count: 65536)
        let count = try using("flistxattr") { fd in buffer.withUnsafeMutableBufferPointer { Sys.flistxattr(fd, $0) } }
        return buffer.prefix(count).split(separator: 0).map { $0.map { UInt8(bitPattern: $0) } }
    }

    /// Removes extended attribute `name`.
    ///
    /// The corresponding C function is `fremovexattr`.
    package func removeExtendedAttribute(_ name: String) throws(FileSystemError) {
        _ = try using("fremovexattr") { fd in name.withCString { Sys.fremovexattr(fd, $0) } }
    }
}
