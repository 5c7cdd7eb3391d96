// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Atomic publish, atomic replace, renameat2

/// How ``Directory/rename(_:to:in:mode:)`` treats an existing destination.
public enum RenameMode: String, Sendable, Hashable {
    /// Replace it atomically (`renameat2` flags 0).
    case replace
    /// Fail with `EEXIST` if anything exists there, a dangling symlink included (`RENAME_NOREPLACE`).
    case noReplace
    /// Swap the two entries atomically; both must exist (`RENAME_EXCHANGE`).
    case exchange

    var flags: UInt32 {
        switch self {
        case .replace: return 0
        case .noReplace: return 1
        case .exchange: return 2
        }
    }
}

/// How ``Directory/replace(_:contents:options:)`` writes the new file and what it accepts at the name.
public struct ReplaceOptions: Sendable, Hashable {
    /// The permission bits the new file gets.
    public enum Permissions: Sendable, Hashable {
        /// Exactly these bits, whatever the umask and whatever the replaced file had.
        case exactly(FilePermissions)
        /// The replaced file's permission bits (`0o777` of them: setuid, setgid and sticky are
        /// dropped), or these when there is no file to replace.
        case keepExisting(otherwise: FilePermissions)
    }

    /// The new file's permission bits. Default: exactly `0600`.
    public var permissions: Permissions
    /// Extended attributes set on the new file before it is renamed into place, so readers never
    /// see the file without them.
    public var extendedAttributes: [ExtendedAttribute]
    /// When `true`, an attribute the file system does not support (`ENOTSUP`) is skipped and named
    /// in ``ReplaceOutcome/unsupportedAttributes``; when `false` (the default) it fails the call.
    public var skipsUnsupportedAttributes: Bool
    /// When `true`, the call fails with `ENOENT` if there is nothing at the name to replace (for
    /// refreshing a file in place). Default `false`: the file is created.
    public var mustExist: Bool
    /// When `true` (the default), anything at the name that is not a regular file (a symlink, a
    /// directory, a FIFO, a device) is refused with ``SecurityViolation/notRegular(_:)`` and left as
    /// it is. When `false`, a symlink or special file at the name is replaced (never followed).
    public var replacesOnlyRegularFiles: Bool
    /// When `true` (the default), the directory is `fsync`ed after the rename, so the new name
    /// survives a power failure once the call returns. When `false`, that is left to the caller,
    /// who writes many files into one directory and syncs it once for all of them (an `fsync` of
    /// the directory per file was about 40 % of `bookmark make --output-dir`'s time). Either way
    /// the file's own data is synced before it is renamed into place: a crash never leaves a torn
    /// file, only, without the directory's sync, possibly the old one (or none) at the name.
    public var syncsDirectory: Bool

    /// Creates options; every parameter has the default described on its property.
    public init(
        permissions: Permissions = .exactly([.ownerReadWrite]), extendedAttributes: [ExtendedAttribute] = [],
        skipsUnsupportedAttributes: Bool = false, mustExist: Bool = false, replacesOnlyRegularFiles: Bool = true,
        syncsDirectory: Bool = true
    ) {
        self.permissions = permissions
        self.extendedAttributes = extendedAttributes
        self.skipsUnsupportedAttributes = skipsUnsupportedAttributes
        self.mustExist = mustExist
        self.replacesOnlyRegularFiles = replacesOnlyRegularFiles
        self.syncsDirectory = syncsDirectory
    }
}

/// One extended attribute to write: a name (such as `user.com.apple.FinderInfo`) and its value.
public struct ExtendedAttribute: Sendable, Hashable {
    /// The attribute's full name, namespace included (`user.…`, `trusted.…`).
    public var name: String
    /// The value's bytes.
    public var value: [UInt8]

    /// Creates an attribute.
    public init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }
}

/// What ``Directory/replace(_:contents:options:)`` did.
public struct ReplaceOutcome: Sendable, Hashable {
    /// The object that was at the name and is now replaced, or `nil` when the file was created.
    public var replaced: ObjectIdentity?
    /// The new file.
    public var written: ObjectIdentity
    /// Attributes the file system refused with `ENOTSUP` and that were skipped (only with
    /// ``ReplaceOptions/skipsUnsupportedAttributes``).
    public var unsupportedAttributes: [String]
}

extension Directory {
    /// Publishes a new file at `path` atomically: readers see nothing, then the complete file with
    /// exactly `permissions`; an existing entry at the name is never replaced (`EEXIST`).
    ///
    /// Implementation details: an unnamed `O_TMPFILE` in the parent, written, `fchmod`, `fsync`,
    /// then `linkat` to the name (with `AT_EMPTY_PATH`, or through `/proc/self/fd/N` without
    /// `CAP_DAC_READ_SEARCH`), then `fsync` of the directory. Where `O_TMPFILE` is unsupported
    /// (`EOPNOTSUPP`, `EISDIR`, `EINVAL`), or the unnamed file cannot be linked (no `/proc` to
    /// link through without `CAP_DAC_READ_SEARCH`), a random name created with `O_EXCL` and moved
    /// with `renameat2(RENAME_NOREPLACE)` (or `linkat` + `unlinkat` where that flag is unsupported).
    ///
    /// - Throws: ``FileSystemError``; `EEXIST` when the name exists.
    public func publish(_ path: FilePath, contents: [UInt8], permissions: FilePermissions = [.ownerReadWrite])
        throws(FileSystemError)
    {
        try scoped { () throws(FileSystemError) in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.publish", bytes, ["mode": octal(permissions.rawValue), "bytes": String(contents.count)])
            let (parent, name) = try prepareWrite(bytes, permissions: permissions.rawValue)
            let content = Content(body: .bytes(contents), permissions: permissions.rawValue, attributes: [], skipsUnsupported: false)
            sweepLeftovers(in: parent, path: bytes)
            let dirfd = try parent.raw("openat")
            switch Sys.openat(dirfd, ".", LinuxFlags.tmpfile | O_RDWR | O_CLOEXEC, 0o600) {
            case .success(let fd):
                let temporary = OwnedDescriptor(adopting: fd, openedPath: path)
                _ = try fill(temporary, content, path: bytes)
                do throws(FileSystemError) {
                    try linkTemporary(temporary, into: parent, name: name, path: bytes)
                } catch {
                    // No /proc to link through without CAP_DAC_READ_SEARCH, or a file system that
                    // refuses, degrades to a named temporary; anything else (EEXIST first) is the answer.
                    guard Self.unnamedLinkUnavailable.contains(error.errno) else { throw error }
                    Audit.policy(.temporaryNameFallback(errno: error.errno))
                    try publishThroughTemporaryName(content, parent: parent, name: name, path: bytes)
                }
            case .failure(let errno) where [.notSupported, .isDirectory, .invalidArgument].contains(errno):
                Audit.policy(.temporaryNameFallback(errno: errno))
                try publishThroughTemporaryName(content, parent: parent, name: name, path: bytes)
            case .failure(let errno):
                throw FileSystemError(syscall: "openat", errno: errno, path: path)
            }
            try confirmIdentityOfEntry(name, in: parent, path: bytes)
            try syncDirectory(parent, path: bytes)
        }
    }

    /// Replaces the file at `path` atomically (or creates it): readers see the old complete file
    /// or the new one, never a torn one, and after a crash one of the two survives.
    ///
    /// - Parameters:
    ///   - path: The file; its parent is resolved by the root's policy.
    ///   - contents: The new file's bytes.
    ///   - options: The new file's permissions (exact, or kept from the replaced file), extended
    ///     attributes, whether the file must already exist, and whether anything but a regular
    ///     file at the name is refused (the default).
    /// - Returns: The identities of the replaced and the new file, and any skipped attributes.
    /// - Throws: ``FileSystemError``: `ENOENT` with ``ReplaceOptions/mustExist`` and nothing there;
    ///   ``SecurityViolation/notRegular(_:)`` for a symlink, directory or special file at the name
    ///   (with ``ReplaceOptions/replacesOnlyRegularFiles``); the failing call otherwise. On any
    ///   failure the temporary file is removed and the old file is untouched.
    ///
    /// Implementation details: the temporary files of writers that are gone are removed first
    /// (see `TemporaryName`); `statx(parent, name, AT_SYMLINK_NOFOLLOW)` of what is there; an
    /// unnamed `O_TMPFILE` in the same directory, written, `fsetxattr` for each attribute, `fchown`
    /// to the replaced file's owner and group when that owner also owns the directory and the caller
    /// may (root refreshing a user's file leaves it the user's; otherwise the new file is the
    /// caller's, as any new file), `fchmod` to
    /// the chosen bits, `fsync`, `linkat` to a temporary name that carries this process's pid
    /// and start time, `renameat2` over the name (an entry swapped in after the check is replaced,
    /// never followed), `fsync` of the directory (unless ``ReplaceOptions/syncsDirectory`` is
    /// `false`). Without `O_TMPFILE`, the temporary name is created with
    /// `O_CREAT|O_EXCL|O_NOFOLLOW` `0600` and written.
    @discardableResult
    public func replace(_ path: FilePath, contents: [UInt8], options: ReplaceOptions = ReplaceOptions())
        throws(FileSystemError) -> ReplaceOutcome
    {
        try replace(path, body: .bytes(contents), size: String(contents.count), options: options)
    }

    /// ``replace(_:contents:options:)`` for contents written a piece at a time: `produce` writes
    /// the new file through the ``ContentWriter`` it is given, so contents larger than memory, or
    /// made while they are written, never need to be held whole. If `produce` throws, the
    /// temporary file is removed, the old file is untouched, and the error is rethrown.
    ///
    /// - Parameters:
    ///   - path: The file; its parent is resolved by the root's policy.
    ///   - options: As for ``replace(_:contents:options:)``.
    ///   - produce: Writes the contents, in order; called once, before the new file is synced,
    ///     given its permissions and linked.
    /// - Returns: The identities of the replaced and the new file, and any skipped attributes.
    /// - Throws: ``FileSystemError``: as ``replace(_:contents:options:)``, or what `produce` threw.
    @discardableResult
    public func replace(
        _ path: FilePath, options: ReplaceOptions = ReplaceOptions(),
        writing produce: @escaping (ContentWriter) throws(FileSystemError) -> Void
    ) throws(FileSystemError) -> ReplaceOutcome {
        try replace(path, body: .produced(produce), size: "streamed", options: options)
    }

    private func replace(_ path: FilePath, body: Content.Body, size: String, options: ReplaceOptions)
        throws(FileSystemError) -> ReplaceOutcome
    {
        try scoped { () throws(FileSystemError) -> ReplaceOutcome in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.replace", bytes, ["options": options.auditDescription, "bytes": size])
            if case .exactly(let permissions) = options.permissions { try checkMode(permissions.rawValue, allowed: 0o777, path: bytes) }
            let (parent, name) = try prepareWrite(bytes, permissions: nil)
            let existing = try existingEntry(name, in: parent, path: bytes)
            if existing == nil && options.mustExist {
                throw FileSystemError(syscall: "statx", errno: .noSuchFileOrDirectory, path: path)
            }
            if let existing, options.replacesOnlyRegularFiles, existing.kind != .regular {
                throw Audit.reject(.notRegular(existing.kind), path: bytes, syscall: "statx", errno: .invalidArgument)
            }
            let permissions: UInt32
            switch options.permissions {
            case .exactly(let chosen): permissions = chosen.rawValue
            case .keepExisting(let otherwise):
                permissions = existing.map { $0.permissions & 0o777 } ?? (otherwise.rawValue & 0o777)
            }
            // The replaced file's owner is kept only when it also owns the directory: in a folder
            // someone else can write, the file at the name may have been swapped for another
            // user's, and the new file must not be given to that user.
            var owner: (uid: UInt32, gid: UInt32)?
            if let existing, try parent.status().uid == existing.uid { owner = (existing.uid, existing.gid) }
            let content = Content(
                body: body, owner: owner, permissions: permissions,
                attributes: options.extendedAttributes, skipsUnsupported: options.skipsUnsupportedAttributes)
            sweepLeftovers(in: parent, path: bytes)
            let (temporary, temporaryName, unsupported) = try writeTemporary(content, in: parent, for: name, path: bytes)
            let dirfd = try parent.raw("renameat2")
            let result = withCName(temporaryName) { from in withCName(name) { Sys.renameat2(dirfd, from, dirfd, $0, 0) } }
            if case .failure(let errno) = result {
                _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) }
                throw FileSystemError(syscall: "renameat2", errno: errno, path: path)
            }
            let written: ObjectIdentity
            do throws(FileSystemError) {
                written = try confirmIdentity(temporary, parent: parent, name: name, path: bytes)
            } catch {
                // Another writer's replace of the same name (or a removal) landed between this
                // rename and the check: this file was at the name and is superseded, its last link
                // gone with the rename over it. Last writer wins, as for any two renames; it is not
                // a failure of this one (two `bookmark make -o same` at once failed one in seven).
                // A file of ours still linked somewhere is another matter, refused as before.
                guard let mine = try? temporary.status(), mine.linkCount == 0 else { throw error }
                Audit.policy(.created(path: bytes, identity: mine.identity))
                written = mine.identity
            }
            if options.syncsDirectory { try syncDirectory(parent, path: bytes) }
            return ReplaceOutcome(replaced: existing?.identity, written: written, unsupportedAttributes: unsupported)
        }
    }

    /// Renames `source` to `destination` (in this root, or in `destinationRoot`) with `renameat2`.
    ///
    /// - Parameters:
    ///   - source: The entry to rename, beneath this root.
    ///   - destination: Its new name, beneath `destinationRoot` (or this root).
    ///   - destinationRoot: Another root to move the entry into, on the same file system; `nil`
    ///     for this one.
    ///   - mode: ``RenameMode/replace``, ``RenameMode/noReplace`` or ``RenameMode/exchange``.
    /// - Throws: ``FileSystemError``: `EEXIST` (no-replace onto anything, a dangling symlink
    ///   included), `ENOENT` (exchange with a missing peer), `EINVAL` where the file system lacks
    ///   the flag.
    public func rename(_ source: FilePath, to destination: FilePath, in destinationRoot: Directory? = nil, mode: RenameMode)
        throws(FileSystemError)
    {
        try scoped { () throws(FileSystemError) in
            let from = PathBytes(source).bytes
            let to = PathBytes(destination).bytes
            Audit.intent("Directory.rename", from, ["to": PathBytes(to).escaped, "mode": mode.rawValue])
            let (fromParent, fromName) = try splitForCreation(from)
            let (toParent, toName) = try (destinationRoot ?? self).splitForCreation(to)
            if mode != .exchange { try (destinationRoot ?? self).refuseCaseCollision(toName, in: toParent, path: to) }
            let fromfd = try fromParent.raw("renameat2")
            let tofd = try toParent.raw("renameat2")
            let result = withCName(fromName) { a in withCName(toName) { Sys.renameat2(fromfd, a, tofd, $0, mode.flags) } }
            if case .failure(let errno) = result {
                throw FileSystemError(syscall: "renameat2", errno: errno, path: source)
            }
        }
    }

    // MARK: Steps

    /// What a writer puts in a new file before it becomes visible.
    private struct Content {
        /// The contents, whole or written by the caller.
        enum Body {
            case bytes([UInt8])
            case produced((ContentWriter) throws(FileSystemError) -> Void)
        }

        var body: Body
        /// The replaced file's owner and group, which the new file takes where the caller may
        /// give them (`keepOwnership`); `nil` for a new name.
        var owner: (uid: UInt32, gid: UInt32)? = nil
        var permissions: UInt32
        var attributes: [ExtendedAttribute]
        var skipsUnsupported: Bool
    }

    /// The steps every writer shares: the mode checked, the parent resolved by the policy and the
    /// final name split off, and a case-folding collision refused.
    private func prepareWrite(_ path: [UInt8], permissions: UInt32?) throws(FileSystemError) -> (OwnedDescriptor, [UInt8]) {
        if let permissions { try checkMode(permissions, allowed: 0o777, path: path) }
        let (parent, name) = try splitForCreation(path)
        try refuseCaseCollision(name, in: parent, path: path)
        return (parent, name)
    }

    /// The errors of linking an unnamed file that mean "not here" rather than "failed": no `/proc`
    /// to link through (`ENOENT`), not permitted (`EPERM`), or not supported (`EOPNOTSUPP`).
    static let unnamedLinkUnavailable: [Errno] = [.noSuchFileOrDirectory, .notPermitted, .notSupported]

    /// The status of the entry `name` in `parent` without following a symlink, or `nil` if absent.
    private func existingEntry(_ name: [UInt8], in parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) -> FileStatus? {
        let dirfd = try parent.raw("statx")
        do throws(FileSystemError) {
            return try FileStatus.statx(
                dirfd: dirfd, path: FilePath(bytes: name), flags: AT_SYMLINK_NOFOLLOW, errorPath: FilePath(bytes: path))
        } catch {
            guard error.errno == .noSuchFileOrDirectory else { throw error }
            return nil
        }
    }

    /// The new content under a temporary name beside `name`, complete and synced, for a rename over
    /// `name`. The data is written into an unnamed `O_TMPFILE` and linked to its temporary name only
    /// once complete, so a writer killed while writing leaves nothing; one killed in the short
    /// window between the link and the rename leaves a file whose name says it is ours
    /// (``TemporaryName``), which the next write here removes. Without `O_TMPFILE`, or when the
    /// unnamed file cannot be linked, the named file is created with `O_EXCL` and written.
    private func writeTemporary(_ content: Content, in parent: OwnedDescriptor, for name: [UInt8], path: [UInt8])
        throws(FileSystemError) -> (OwnedDescriptor, [UInt8], unsupported: [String])
    {
        let dirfd = try parent.raw("openat")
        switch Sys.openat(dirfd, ".", LinuxFlags.tmpfile | O_RDWR | O_CLOEXEC, 0o600) {
        case .success(let fd):
            let unnamed = OwnedDescriptor(adopting: fd, openedPath: FilePath(bytes: path))
            let unsupported = try fill(unnamed, content, path: path)
            for _ in 0..<8 {
                let temporaryName = TemporaryName.make(for: name)
                do throws(FileSystemError) {
                    try linkTemporary(unnamed, into: parent, name: temporaryName, path: path)
                    return (unnamed, temporaryName, unsupported)
                } catch {
                    if error.errno == .fileExists { continue }
                    // No /proc to link through without CAP_DAC_READ_SEARCH, or a file system that
                    // cannot link an unnamed file: a named temporary. Anything else is the answer.
                    guard Self.unnamedLinkUnavailable.contains(error.errno) else { throw error }
                    Audit.policy(.temporaryNameFallback(errno: error.errno))
                    break
                }
            }
        case .failure(let errno) where [.notSupported, .isDirectory, .invalidArgument].contains(errno):
            Audit.policy(.temporaryNameFallback(errno: errno))
        case .failure(let errno):
            throw FileSystemError(syscall: "openat", errno: errno, path: FilePath(bytes: path))
        }
        let (temporary, temporaryName) = try createTemporary(in: parent, for: name, path: path)
        do throws(FileSystemError) {
            return (temporary, temporaryName, try fill(temporary, content, path: path))
        } catch {
            _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) }
            throw error
        }
    }

    /// A random name with `O_EXCL`, filled, then moved to `name` without replacing; the temporary
    /// name is removed whatever fails.
    private func publishThroughTemporaryName(
        _ content: Content, parent: OwnedDescriptor, name: [UInt8], path: [UInt8]
    ) throws(FileSystemError) {
        let (temporary, temporaryName) = try createTemporary(in: parent, for: name, path: path)
        do throws(FileSystemError) {
            _ = try fill(temporary, content, path: path)
        } catch {
            if let dirfd = parent.rawValue { _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) } }
            throw error
        }
        try moveTemporary(temporaryName, in: parent, to: name, path: path)
    }

    /// Writes the bytes, sets the attributes and the exact mode, then `fsync`: the file is
    /// complete on disk before any name points at it. Returns the attributes skipped as unsupported.
    private func fill(_ fd: OwnedDescriptor, _ content: Content, path: [UInt8]) throws(FileSystemError) -> [String] {
        let writer = ContentWriter(file: fd, path: path)
        switch content.body {
        case .bytes(let bytes): try writer.write(bytes)
        case .produced(let produce): try produce(writer)
        }
        var unsupported: [String] = []
        for attribute in content.attributes {
            do throws(FileSystemError) {
                try fd.setExtendedAttribute(attribute.name, to: attribute.value)
            } catch {
                guard content.skipsUnsupported, error.errno == .notSupported else { throw error }
                unsupported.append(attribute.name)
            }
        }
        if let owner = content.owner { try keepOwnership(owner, of: fd, path: path) }
        try setExactMode(fd, content.permissions, path: path)
        _ = try fd.using("fsync") { Sys.fsync($0) }
        return unsupported
    }

    /// Gives the new file the replaced file's owner and group, so that a privileged writer (root
    /// refreshing a user's bookmark) does not take the file from its owner. Where the caller may
    /// not (`EPERM`: another user's file, or a group the caller is not in), the new file stays the
    /// caller's, as any new file is; the group alone is tried before giving up.
    func keepOwnership(_ owner: (uid: UInt32, gid: UInt32), of fd: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) {
        let mine = try fd.status()
        guard mine.uid != owner.uid || mine.gid != owner.gid else { return }
        let raw = try fd.raw("fchown")
        switch Sys.fchown(raw, owner.uid, owner.gid) {
        case .success: return
        case .failure(let errno) where errno == .notPermitted:
            if mine.gid != owner.gid { _ = Sys.fchown(raw, UInt32.max, owner.gid) }
        case .failure(let errno):
            throw FileSystemError(syscall: "fchown", errno: errno, path: FilePath(bytes: path))
        }
    }

    private func linkTemporary(_ temporary: OwnedDescriptor, into parent: OwnedDescriptor, name: [UInt8], path: [UInt8])
        throws(FileSystemError)
    {
        let fd = try temporary.raw("linkat")
        let dirfd = try parent.raw("linkat")
        var result = withCName(name) { Sys.linkat(fd, "", dirfd, $0, LinuxFlags.emptyPath) }
        if case .failure(let errno) = result, errno == .noSuchFileOrDirectory || errno == .notPermitted {
            // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc link of our own descriptor does not.
            result = withCName(Array("/proc/self/fd/\(fd)".utf8)) { proc in
                withCName(name) { Sys.linkat(atCurrentDirectory, proc, dirfd, $0, AT_SYMLINK_FOLLOW) }
            }
        }
        if case .failure(let errno) = result {
            throw FileSystemError(syscall: "linkat", errno: errno, path: FilePath(bytes: path))
        }
    }

    private func createTemporary(in parent: OwnedDescriptor, for name: [UInt8], path: [UInt8])
        throws(FileSystemError) -> (OwnedDescriptor, [UInt8])
    {
        for _ in 0..<8 {
            let temporaryName = TemporaryName.make(for: name)
            do throws(FileSystemError) {
                let fd = try openAt(
                    parent, temporaryName, flags: O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR, mode: 0o600, path: path)
                return (fd, temporaryName)
            } catch {
                if error.errno != .fileExists { throw error }
            }
        }
        throw FileSystemError(syscall: "openat", errno: .fileExists, path: FilePath(bytes: path))
    }

    private func moveTemporary(_ temporaryName: [UInt8], in parent: OwnedDescriptor, to name: [UInt8], path: [UInt8])
        throws(FileSystemError)
    {
        let dirfd = try parent.raw("renameat2")
        var result = withCName(temporaryName) { from in withCName(name) { Sys.renameat2(dirfd, from, dirfd, $0, 1) } }
        if case .failure(.invalidArgument) = result {
            // No RENAME_NOREPLACE here: a hard link is just as exclusive.
            result = withCName(temporaryName) { from in withCName(name) { Sys.linkat(dirfd, from, dirfd, $0, 0) } }
        }
        _ = withCName(temporaryName) { Sys.unlinkat(dirfd, $0, 0) }
        if case .failure(let errno) = result {
            throw FileSystemError(syscall: "renameat2", errno: errno, path: FilePath(bytes: path))
        }
    }

    private func confirmIdentityOfEntry(_ name: [UInt8], in parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) {
        let opened = try openAt(parent, name, flags: LinuxFlags.path | O_NOFOLLOW, mode: 0, path: path)
        Audit.policy(.created(path: path, identity: try opened.status().identity))
    }

    func syncDirectory(_ parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) {
        let directory = try openAt(parent, [UInt8(ascii: ".")], flags: O_RDONLY | O_DIRECTORY, mode: 0, path: path)
        _ = try directory.using("fsync") { Sys.fsync($0) }
    }
}

extension ReplaceOptions {
    /// `mode=0o644 attributes=1 mustExist regularOnly`, for the audit log.
    var auditDescription: String {
        var parts: [String] = []
        switch permissions {
        case .exactly(let bits): parts.append("mode=" + octal(bits.rawValue))
        case .keepExisting(let otherwise): parts.append("mode=keep(" + octal(otherwise.rawValue) + ")")
        }
        if !extendedAttributes.isEmpty { parts.append("attributes=\(extendedAttributes.count)") }
        if mustExist { parts.append("mustExist") }
        if replacesOnlyRegularFiles { parts.append("regularOnly") }
        if !syncsDirectory { parts.append("noDirectorySync") }
        return parts.joined(separator: " ")
    }
}

/// Writes a new file's contents a piece at a time, for ``Directory/replace(_:options:writing:)``:
/// only valid during that call.
public struct ContentWriter: Sendable {
    let file: OwnedDescriptor
    let path: [UInt8]

    /// Appends `bytes` to the new file.
    ///
    /// The corresponding C function is `write`, called until every byte is written.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            let written = try file.using("write") { raw in Sys.write(raw, rest) }
            if written <= 0 { throw FileSystemError(syscall: "write", errno: .ioError, path: FilePath(bytes: path)) }
            offset += written
        }
    }

    /// Appends `bytes` to the new file.
    public func write(_ bytes: [UInt8]) throws(FileSystemError) {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(FileSystemError) in try write(buffer) } }
        try result.get()
    }
}
