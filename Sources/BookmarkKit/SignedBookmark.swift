import BookmarkFormat
@preconcurrency import Crypto
import FileIdentity
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Why signed (security-scoped) bookmark data was refused.
public struct SecurityScopeError: Error, Sendable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Code: String, Sendable, Hashable, Codable {
        /// The data carries no signature.
        case unsigned
        /// The data is not what was signed: it does not decode, or is not in the exact form we write.
        case tampered
        /// The signature does not match: the data was changed, or signed with another key.
        case signatureMismatch
        /// The key file is missing, unreadable, not ours, not mode 0600 (or stricter), or malformed.
        case keyRejected
        /// The bookmark resolved to an object outside every allowed root directory.
        case outsideScope
        /// The signature was valid but the bookmark could not be resolved (see ``bookmarkError``).
        case resolution
    }

    /// The kind of refusal.
    public var code: Code
    /// A sentence saying why.
    public var message: String
    /// For ``Code/resolution`` and ``Code/tampered``: the underlying error.
    public var bookmarkError: BookmarkError?
    /// For ``Code/keyRejected``: the file system error, if that was the reason.
    public var fileSystemError: FileSystemError?

    init(_ code: Code, _ message: String, bookmarkError: BookmarkError? = nil, fileSystemError: FileSystemError? = nil) {
        self.code = code
        self.message = message
        self.bookmarkError = bookmarkError
        self.fileSystemError = fileSystemError
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// Where signed bookmarks keep their signature.
public enum SignedBookmark {
    /// The string key under which the HMAC-SHA256 (32 bytes) is stored in the target TOC. Apple's
    /// parsers show it as one more resource value; it is ours, not Apple's sandbox extension.
    public static let signatureKey = BookmarkKey.string(ByteString(LinuxKeys.prefix + "signature.hmac-sha256"))
    /// The size of the signature.
    public static let signatureSize = 32
    /// The file name of an application's key under `$XDG_DATA_HOME/<application id>/`.
    public static let keyFileName = "bookmark-signing.key"
}

/// A per-application key that signs bookmark data (HMAC-SHA256) and verifies it.
///
/// The key is 32 random bytes in a file of mode 0600 owned by the user, created exclusively (a
/// crash leaves no half-written key; two processes creating it at once end up with one key). Every
/// load checks, on the opened file itself, that it is a regular file owned by the effective user
/// with no group or other permission bits, and 32 bytes long.
public struct SigningKey: Sendable {
    let secret: [UInt8]
    /// The file the key came from.
    public let path: FilePath?

    /// A key from its 32 bytes (for tests and callers that keep keys elsewhere).
    public init(bytes: [UInt8]) {
        secret = bytes
        path = nil
    }

    init(secret: [UInt8], path: FilePath?) {
        self.secret = secret
        self.path = path
    }

    var key: SymmetricKey { SymmetricKey(data: secret) }

    /// `$XDG_DATA_HOME/<applicationID>/bookmark-signing.key`, with `$HOME/.local/share` when
    /// `XDG_DATA_HOME` is unset or not absolute (XDG Base Directory rules).
    public static func defaultLocation(applicationID: String) -> FilePath? {
        guard !applicationID.isEmpty, !applicationID.contains("/"), applicationID != ".", applicationID != ".." else {
            return nil
        }
        var base: FilePath?
        if let value = environment("XDG_DATA_HOME"), value.hasPrefix("/") {
            base = FilePath(value)
        } else if let home = environment("HOME"), home.hasPrefix("/") {
            base = FilePath(home).appending(".local").appending("share")
        }
        return base?.appending(applicationID).appending(SignedBookmark.keyFileName)
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Loads the key at `path`, verifying the file on every load.
    ///
    /// - Throws: ``SecurityScopeError`` `keyRejected` (with the reason).
    public static func load(from path: FilePath) throws(SecurityScopeError) -> SigningKey {
        let file: OwnedDescriptor
        do {
            file = try OwnedDescriptor.open(path, options: [.readOnly, .noFollow, .nonBlocking])
        } catch {
            throw SecurityScopeError(.keyRejected, "cannot open the key file \(path): \(error)", fileSystemError: error)
        }
        defer { try? file.close() }
        do {
            let status = try file.status()
            guard status.kind == .regular else {
                throw SecurityScopeError(.keyRejected, "the key file \(path) is a \(status.kind.rawValue), not a regular file")
            }
            let me = OwnedDescriptor.effectiveUserID
            guard status.uid == me else {
                throw SecurityScopeError(
                    .keyRejected, "the key file \(path) is owned by uid \(status.uid), not by this user (uid \(me))")
            }
            guard status.permissions & 0o077 == 0 else {
                throw SecurityScopeError(
                    .keyRejected,
                    "the key file \(path) has mode 0\(String(status.permissions, radix: 8)); it must be 0600 (no group or other access)")
            }
            let bytes = try file.readToEnd(limit: 4096)
            guard bytes.count == 32 else {
                throw SecurityScopeError(.keyRejected, "the key file \(path) holds \(bytes.count) bytes, not 32")
            }
            return SigningKey(secret: bytes, path: path)
        } catch let error as SecurityScopeError {
            throw error
        } catch let error as FileSystemError {
            throw SecurityScopeError(.keyRejected, "cannot read the key file \(path): \(error)", fileSystemError: error)
        } catch {
            throw SecurityScopeError(.keyRejected, "cannot read the key file \(path): \(error)")
        }
    }

    /// Loads the key at `path`, creating it (and its directory, mode 0700) when it does not exist.
    ///
    /// - Returns: The key, and whether this call created it.
    /// - Throws: ``SecurityScopeError`` `keyRejected`.
    public static func loadOrCreate(at path: FilePath) throws(SecurityScopeError) -> (key: SigningKey, created: Bool) {
        switch Result(catching: { () throws(SecurityScopeError) -> SigningKey in try load(from: path) }) {
        case .success(let key): return (key, false)
        case .failure(let error):
            guard error.fileSystemError?.code == .notFound else { throw error }
        }
        guard let last = path.lastComponent, last.kind == .regular else {
            throw SecurityScopeError(.keyRejected, "not a key file path: \(path)")
        }
        var parent = path
        parent.removeLastComponent()
        if parent.isEmpty { parent = "." }
        let name = FilePath(root: nil, [last])
        let temporary = FilePath(".\(last.string.prefix(100)).\(UInt64.random(in: 0 ... .max)).tmp")
        var created = false
        do throws(FileSystemError) {
            let directory = try openCreatingDirectory(parent)
            defer { try? directory.close() }
            let file = try OwnedDescriptor.open(
                temporary, relativeTo: directory, options: [.writeOnly, .create, .exclusive, .noFollow],
                permissions: [.ownerReadWrite])
            do throws(FileSystemError) {
                defer { try? file.close() }
                try file.setPermissions([.ownerReadWrite])
                let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
                try file.writeAll(secret)
                try file.synchronize()
                try file.close()
                do throws(FileSystemError) {
                    try directory.linkEntry(temporary, as: name)
                    created = true
                } catch {
                    guard error.code == .exists else { throw error }
                }
                try? directory.removeEntry(temporary)
                try? directory.synchronize()
            } catch {
                try? directory.removeEntry(temporary)
                throw error
            }
        } catch {
            throw SecurityScopeError(.keyRejected, "cannot create the key file \(path): \(error)", fileSystemError: error)
        }
        return (try load(from: path), created)
    }

    /// Opens `path` as a directory, creating it (mode 0700), and its parent if needed, when missing.
    static func openCreatingDirectory(_ path: FilePath) throws(FileSystemError) -> OwnedDescriptor {
        switch Result(catching: { () throws(FileSystemError) -> OwnedDescriptor in
            try OwnedDescriptor.open(path, options: [.readOnly, .directory])
        }) {
        case .success(let directory): return directory
        case .failure(let error):
            guard error.code == .notFound, let last = path.lastComponent, last.kind == .regular else { throw error }
            var parent = path
            parent.removeLastComponent()
            if parent.isEmpty { parent = "." }
            let up = try openCreatingDirectory(parent)
            defer { try? up.close() }
            do {
                try up.makeDirectory(FilePath(root: nil, [last]), permissions: [.ownerReadWriteExecute])
            } catch {
                guard error.code == .exists else { throw error }
            }
            return try OwnedDescriptor.open(
                FilePath(root: nil, [last]), relativeTo: up, options: [.readOnly, .directory, .noFollow])
        }
    }

    /// The key of application `applicationID` at ``defaultLocation(applicationID:)``, created on
    /// first use.
    ///
    /// - Throws: ``SecurityScopeError`` `keyRejected` (also for an application id that is not one
    ///   path component, or when neither `XDG_DATA_HOME` nor `HOME` is an absolute path).
    public static func forApplication(_ applicationID: String) throws(SecurityScopeError) -> SigningKey {
        guard let location = defaultLocation(applicationID: applicationID) else {
            throw SecurityScopeError(
                .keyRejected, "no key location for application id \"\(applicationID)\" (XDG_DATA_HOME and HOME unusable?)")
        }
        return try loadOrCreate(at: location).key
    }

    // MARK: - Signing and verifying

    /// Signs bookmark data: records ``BookmarkCreationOptions/withSecurityScope`` in its creation
    /// options and stores the HMAC-SHA256 of its encoding (with the signature zeroed) under
    /// ``SignedBookmark/signatureKey``.
    ///
    /// - Throws: ``BookmarkError`` `corruptData` when the record cannot be encoded.
    public func sign(_ bookmark: Bookmark) throws(BookmarkError) -> Bookmark {
        var record = bookmark.record
        record.creationOptions = (record.creationOptions ?? 0) | BookmarkCreationOptions.withSecurityScope.rawValue
        record[SignedBookmark.signatureKey] = .data([UInt8](repeating: 0, count: SignedBookmark.signatureSize))
        let unsigned = try Bookmark(record: record).data()
        let code = HMAC<SHA256>.authenticationCode(for: unsigned, using: key)
        record[SignedBookmark.signatureKey] = .data(Array(code))
        let signed = Bookmark(record: record)
        // Signed data must verify: re-decoding must give the same bytes.
        let bytes = try signed.data()
        guard (try? Bookmark(data: bytes).data()) == bytes else {
            throw BookmarkError(.corruptData, "the bookmark does not encode in a stable form and cannot be signed")
        }
        return signed
    }

    /// Checks signed bookmark data and returns the bookmark.
    ///
    /// The data must decode, re-encode to exactly the same bytes (so no byte outside what the
    /// signature covers can differ), carry a 32-byte signature, and the signature must be the
    /// HMAC-SHA256 of the data with the signature zeroed, under this key (compared in constant time).
    ///
    /// - Throws: ``SecurityScopeError``: `unsigned`, `tampered`, `signatureMismatch`.
    public func verify(_ data: [UInt8]) throws(SecurityScopeError) -> Bookmark {
        let bookmark: Bookmark
        switch Result(catching: { () throws(BookmarkError) -> Bookmark in try Bookmark(data: data) }) {
        case .success(let decoded): bookmark = decoded
        case .failure(let error):
            throw SecurityScopeError(.tampered, "the data does not decode: \(error.message)", bookmarkError: error)
        }
        guard case .data(let signature)? = bookmark.record[SignedBookmark.signatureKey] else {
            throw SecurityScopeError(.unsigned, "the bookmark data carries no signature")
        }
        guard signature.count == SignedBookmark.signatureSize else {
            throw SecurityScopeError(.tampered, "the signature is \(signature.count) bytes, not 32")
        }
        guard (try? bookmark.data()) == data else {
            throw SecurityScopeError(.tampered, "the data is not in the exact form it was signed in")
        }
        var zeroed = bookmark.record
        zeroed[SignedBookmark.signatureKey] = .data([UInt8](repeating: 0, count: SignedBookmark.signatureSize))
        guard let unsigned = try? Bookmark(record: zeroed).data(),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: unsigned, using: key)
        else {
            throw SecurityScopeError(
                .signatureMismatch, "the signature does not match: the data was changed or signed with another key")
        }
        return bookmark
    }

    /// Verifies signed bookmark data, resolves it, and confines the result beneath `roots`.
    ///
    /// - Parameters:
    ///   - data: The signed bookmark data.
    ///   - roots: Directories the resolved object must lie beneath (or be); empty means no
    ///     confinement. Checked by identity through `SecureFiles` (walking `..` from the object),
    ///     never by comparing path strings, so symlinks cannot smuggle the result outside.
    ///   - options: Resolution options.
    /// - Throws: ``SecurityScopeError``.
    public func resolve(
        _ data: [UInt8], confinedTo roots: [FilePath] = [], options: ResolutionOptions = ResolutionOptions(),
        volumes: MountedVolumes? = nil
    ) throws(SecurityScopeError) -> ScopedResolution {
        let bookmark = try verify(data)
        let resolution: Resolution
        switch Result(catching: { () throws(BookmarkError) -> Resolution in try bookmark.resolve(options, volumes: volumes) }) {
        case .success(let value): resolution = value
        case .failure(let error):
            throw SecurityScopeError(.resolution, error.description, bookmarkError: error)
        }
        if !roots.isEmpty {
            try Confinement.check(resolution.path, beneath: roots)
        }
        return ScopedResolution(
            resolution: resolution,
            readOnly: bookmark.creationOptions.contains(.securityScopeAllowOnlyReadAccess))
    }
}

/// A verified, resolved, confined signed bookmark.
public struct ScopedResolution: Sendable {
    /// Where the object is, and why we think so.
    public var resolution: Resolution
    /// Whether the scope grants read access only (``BookmarkCreationOptions/securityScopeAllowOnlyReadAccess``
    /// was recorded at creation). Callers must then open the object read-only.
    public var readOnly: Bool
}

/// Whether an object lies beneath one of some directories, decided by identity.
enum Confinement {
    struct Identity: Hashable {
        var device: DeviceNumber
        var inode: UInt64
    }

    static func identity(_ descriptor: OwnedDescriptor) throws(FileSystemError) -> Identity {
        let status = try descriptor.status()
        return Identity(device: status.device, inode: status.inode)
    }

    /// Refuses `path` unless the object it names is one of `roots` or lies beneath one.
    ///
    /// The object is opened (`O_PATH`, following symlinks: that is the object a caller would get);
    /// for a non-directory, its parent is opened from the kernel's path of the object and the name
    /// is checked to still be that object. Then `..` is followed upwards, comparing
    /// (device, inode) with each root, until the file-system root.
    static func check(_ path: FilePath, beneath roots: [FilePath]) throws(SecurityScopeError) {
        do {
            var allowed = Set<Identity>()
            for root in roots {
                let directory = try OwnedDescriptor.open(root, options: [.pathOnly, .directory])
                defer { try? directory.close() }
                allowed.insert(try identity(directory))
            }
            let object = try OwnedDescriptor.open(path, options: [.pathOnly])
            defer { try? object.close() }
            let objectID = try identity(object)
            if allowed.contains(objectID) { return }
            var current: OwnedDescriptor
            if try object.status().kind == .directory {
                current = object
            } else {
                guard let real = try object.currentPath(), let name = real.lastComponent else {
                    throw SecurityScopeError(.outsideScope, "the object at \(path) was removed while it was checked")
                }
                var parentPath = real
                parentPath.removeLastComponent()
                let parent = try OwnedDescriptor.open(parentPath, options: [.pathOnly, .directory])
                let again = try OwnedDescriptor.open(
                    FilePath(root: nil, [name]), relativeTo: parent, options: [.pathOnly, .noFollow])
                defer { try? again.close() }
                guard try identity(again) == objectID else {
                    throw SecurityScopeError(.outsideScope, "the object at \(path) moved while it was checked")
                }
                current = parent
            }
            for _ in 0..<4096 {
                let here = try identity(current)
                if allowed.contains(here) { return }
                let up = try OwnedDescriptor.open("..", relativeTo: current, options: [.pathOnly, .directory])
                if try identity(up) == here { break }
                current = up
            }
            throw SecurityScopeError(
                .outsideScope, "\(path) is not beneath any allowed directory (\(roots.map(\.description).joined(separator: ", ")))")
        } catch let error as SecurityScopeError {
            throw error
        } catch {
            throw SecurityScopeError(.outsideScope, "cannot check where \(path) lies: \(error)")
        }
    }
}
