// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Digests
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
        /// Write access was asked of a bookmark whose scope allows reading only
        /// (``BookmarkCreationOptions/securityScopeAllowOnlyReadAccess``).
        case readOnlyScope
    }

    /// The kind of refusal.
    public var code: Code
    /// A sentence saying why.
    public var message: String
    /// For ``Code/resolution`` and ``Code/tampered``: the underlying error.
    public var bookmarkError: BookmarkError?
    /// For ``Code/keyRejected``: the file system error, if that was the reason.
    public var fileSystemError: FileSystemError?

    package init(_ code: Code, _ message: String, bookmarkError: BookmarkError? = nil, fileSystemError: FileSystemError? = nil) {
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
    package static let signatureSize = 32
    /// The file name of an application's key under `$XDG_DATA_HOME/<application id>/`.
    package static let keyFileName = "bookmark-signing.key"
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

    /// Loads the key at `path`, verifying the file on every load: a regular file (a symlink at the
    /// name is refused), owned by this user, with no access at all for group or others, holding
    /// exactly 32 bytes. The checks are made on the opened descriptor before it is read
    /// (`Directory.readVerified(_:verification:limit:)` with
    /// `VerificationPolicy.ownSecret`).
    ///
    /// - Throws: ``SecurityScopeError`` `keyRejected` (with the reason; a missing file keeps its
    ///   ``SecurityScopeError/fileSystemError`` with code `notFound`).
    public static func load(from path: FilePath) throws(SecurityScopeError) -> SigningKey {
        let bytes: [UInt8]
        do throws(FileSystemError) {
            bytes = try Directory.current.readVerified(path, verification: .ownSecret, limit: 4096)
        } catch {
            throw SecurityScopeError(.keyRejected, "cannot use the key file \(path): \(error)", fileSystemError: error)
        }
        guard bytes.count == 32 else {
            throw SecurityScopeError(.keyRejected, "the key file \(path) holds \(bytes.count) bytes, not 32")
        }
        return SigningKey(secret: bytes, path: path)
    }

    /// Loads the key at `path`, creating it (and its directory, mode 0700) when it does not exist.
    ///
    /// A new key is published atomically with mode `0600` (`Directory.publish(_:contents:permissions:)`):
    /// readers never see a partial key, and when two processes create it at once, one key wins and
    /// both load that one.
    ///
    /// - Returns: The key, and whether this call created it.
    /// - Throws: ``SecurityScopeError`` `keyRejected`.
    public static func loadOrCreate(at path: FilePath) throws(SecurityScopeError) -> (key: SigningKey, created: Bool) {
        switch Result(catching: { () throws(SecurityScopeError) -> SigningKey in try load(from: path) }) {
        case .success(let key): return (key, false)
        case .failure(let error):
            guard error.fileSystemError?.code == .notFound else { throw error }
        }
        let bytes = PathBytes(path)
        guard let name = bytes.lastComponent, name != [0x2E], name != [0x2E, 0x2E] else {
            throw SecurityScopeError(.keyRejected, "not a key file path: \(path)")
        }
        var created = false
        do throws(FileSystemError) {
            let directory = try Directory.current.createDirectory(
                bytes.parent.filePath, permissions: [.ownerReadWriteExecute], withIntermediateDirectories: true)
            let secret = Digests.randomBytes(32)
            do throws(FileSystemError) {
                try directory.publish(PathBytes(name).filePath, contents: secret, permissions: [.ownerReadWrite])
                created = true
            } catch {
                // Another process published its key first: load that one.
                guard error.code == .exists else { throw error }
            }
        } catch {
            throw SecurityScopeError(.keyRejected, "cannot create the key file \(path): \(error)", fileSystemError: error)
        }
        return (try load(from: path), created)
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
        let code = Digests.hmacSHA256(unsigned, key: secret)
        record[SignedBookmark.signatureKey] = .data(code)
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
            Digests.isValidHMACSHA256(signature, for: unsigned, key: secret)
        else {
            throw SecurityScopeError(
                .signatureMismatch, "the signature does not match: the data was changed or signed with another key")
        }
        return bookmark
    }

    /// Verifies signed bookmark data, resolves it, opens the object it finds (verified to be that
    /// object, see ``Bookmark/open(_:resolving:volumes:attempts:)``), and confines it beneath `roots`.
    ///
    /// - Parameters:
    ///   - data: The signed bookmark data.
    ///   - roots: Directories the resolved object must lie beneath (or be); empty means no
    ///     confinement. Decided on the opened object, never by comparing the strings the caller
    ///     gave: each root is opened as a `Directory`, and the object must be reachable
    ///     beneath it (`RESOLVE_BENEATH`: no symlink, `..` or absolute path may leave the root) as the
    ///     very object that was opened.
    ///   - options: Resolution options.
    ///   - volumes: A mounted-volume table to reuse.
    /// - Returns: The resolution, the verified descriptor (`O_PATH`: upgrade it with
    ///   ``ScopedResolution/open(_:)``), and whether the scope is read-only.
    /// - Throws: ``SecurityScopeError``.
    public func resolve(
        _ data: [UInt8], confinedTo roots: [FilePath] = [], options: ResolutionOptions = ResolutionOptions(),
        volumes: MountedVolumes? = nil
    ) throws(SecurityScopeError) -> ScopedResolution {
        let bookmark = try verify(data)
        let opened: OpenedBookmark
        switch Result(catching: { () throws(BookmarkError) -> OpenedBookmark in
            try bookmark.open(.pathOnly, resolving: options, volumes: volumes)
        }) {
        case .success(let value): opened = value
        case .failure(let error):
            throw SecurityScopeError(.resolution, error.description, bookmarkError: error)
        }
        if !roots.isEmpty {
            try Confinement.check(opened.descriptor, path: opened.resolution.path, beneath: roots)
        }
        return ScopedResolution(
            resolution: opened.resolution, descriptor: opened.descriptor,
            readOnly: bookmark.creationOptions.contains(.securityScopeAllowOnlyReadAccess))
    }
}

/// A verified, resolved, confined signed bookmark.
public struct ScopedResolution: Sendable {
    /// Where the object is, and why we think so.
    public var resolution: Resolution
    /// The object itself, opened `O_PATH` and verified to be the resolved (and confined) object.
    public var descriptor: OwnedDescriptor
    /// Whether the scope grants read access only (``BookmarkCreationOptions/securityScopeAllowOnlyReadAccess``
    /// was recorded at creation). ``open(_:)`` then refuses any access but reading.
    public var readOnly: Bool

    /// Opens the confined object for I/O through the verified descriptor (the same object,
    /// whatever happened to its path since). A read-only scope refuses write access.
    ///
    /// - Throws: ``SecurityScopeError`` `readOnlyScope` for write access in a read-only scope, or
    ///   `resolution` (with the file-system error) when the object cannot be opened so.
    public func open(_ options: OwnedDescriptor.OpenOptions = .readOnly) throws(SecurityScopeError) -> OwnedDescriptor {
        if readOnly && (options.contains(.writeOnly) || options.contains(.readWrite) || options.contains(.truncate)
            || options.contains(.append))
        {
            throw SecurityScopeError(.readOnlyScope, "the bookmark's scope allows reading only")
        }
        do throws(FileSystemError) {
            return try descriptor.reopen(options: options)
        } catch {
            throw SecurityScopeError(.resolution, "cannot open \(resolution.path): \(error)", fileSystemError: error)
        }
    }
}

/// Whether an object lies beneath one of some directories, decided on the opened object.
enum Confinement {
    /// Refuses `object` unless it is one of `roots` or reachable beneath one as the same object.
    ///
    /// The kernel's current path of the object (`/proc/self/fd`) is taken apart against each root's
    /// current path; the remainder is opened beneath the root with `ResolutionPolicy.beneath`
    /// (`O_PATH|O_NOFOLLOW`) and must be the object itself (device and inode). So a symlink in
    /// the root that leads out, a root given through a symlink, or a sibling whose name merely
    /// starts like the root's cannot pass.
    static func check(_ object: OwnedDescriptor, path: FilePath, beneath roots: [FilePath]) throws(SecurityScopeError) {
        let confined: Bool?
        do throws(FileSystemError) {
            confined = try isBeneath(object, roots)
        } catch {
            throw SecurityScopeError(.outsideScope, "cannot check where \(path) lies: \(error)", fileSystemError: error)
        }
        guard let confined else {
            throw SecurityScopeError(.outsideScope, "the object at \(path) was removed while it was checked")
        }
        if !confined {
            throw SecurityScopeError(
                .outsideScope, "\(path) is not beneath any allowed directory (\(roots.map(\.description).joined(separator: ", ")))")
        }
    }

    /// Whether `object` is reachable beneath one of `roots` as itself; `nil` when it has no path
    /// any more (deleted).
    private static func isBeneath(_ object: OwnedDescriptor, _ roots: [FilePath]) throws(FileSystemError) -> Bool? {
        let objectStatus = try object.status()
        guard let current = try object.currentPathBytes().map(PathBytes.init) else { return nil }
        for rootPath in roots {
            let root = try Directory(opening: rootPath, policy: .beneath)
            guard let rootCurrent = try root.descriptor.currentPathBytes().map(PathBytes.init),
                current.isWithin(rootCurrent)
            else { continue }
            let remainder = Array(current.components.dropFirst(rootCurrent.components.count))
            let reached: FileStatus
            if remainder.isEmpty {
                reached = try root.status()
            } else {
                let relative = PathBytes(components: remainder, absolute: false)
                reached = try root.open(bytes: relative.bytes, options: [.pathOnly, .noFollow]).status()
            }
            if reached.device == objectStatus.device && reached.inode == objectStatus.inode { return true }
        }
        return false
    }
}
