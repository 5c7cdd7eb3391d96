// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    /// Security-scoped bookmarks on Linux: the application identity and key that sign them, and the
    /// URLs whose access was started.
    ///
    /// On macOS, a bookmark made with `.withSecurityScope` carries a signature made with a key of
    /// the creating application; only that application can resolve it with `.withSecurityScope`,
    /// and `startAccessingSecurityScopedResource()` on the URL it returns grants the App Sandbox
    /// access. Linux has no App Sandbox, so this module gives the same calls the meaning it can:
    ///
    /// - **Creating** with `.withSecurityScope` signs the data (HMAC-SHA256, `BookmarkKit`'s
    ///   `SigningKey`) with the key of this application (``applicationIdentifier``).
    /// - **Resolving** with `.withSecurityScope` verifies the signature first: data that is
    ///   unsigned, changed in any byte, or signed by another application fails with
    ///   `CocoaError.fileReadCorruptFile`, as macOS fails it. The URL it returns is registered as
    ///   scoped.
    /// - **`startAccessingSecurityScopedResource()`** returns `true` for a registered URL (and
    ///   counts the call) and `false` for any other URL, as on macOS;
    ///   `stopAccessingSecurityScopedResource()` balances it, and is harmless without a matching
    ///   start.
    /// - **`securityScopeAllowOnlyReadAccess`** is recorded in the signed data and enforced when the
    ///   object is opened through this library: ``open(_:for:)`` (and
    ///   `FileHandle(forSecurityScopedURL:access:)`) refuses write access with
    ///   `CocoaError.fileWriteNoPermission`.
    ///
    /// **Where the key lives.** `$XDG_DATA_HOME/<applicationIdentifier>/bookmark-signing.key`
    /// (`$HOME/.local/share/…` when `XDG_DATA_HOME` is unset): 32 random bytes, created on first
    /// use exclusively with mode 0600 in a directory made with mode 0700, owned by the user. Every
    /// load checks, on the opened file, that it is a regular file owned by the effective user with
    /// no group or other permission and exactly 32 bytes; anything else is refused with
    /// `CocoaError.fileReadUnknown` and "Failed to retrieve app-scope key" (macOS's words when it
    /// has no key), underlying `SecurityScopeError.keyRejected`. The key is loaded once per process.
    ///
    /// **What it protects against.** Data forged or changed by anyone who cannot read the key
    /// (another user, a file synced from elsewhere, a corrupted store), and data of one application
    /// resolved by another. It is not a boundary against code that runs as the same user and
    /// reads the key file: Linux has no per-application file permissions to stop that.
    ///
    /// **The registry.** Scoped URLs are kept in one process-wide table, keyed by the absolute
    /// string of the URL a scoped resolution returned (so any equal `URL` value, such as
    /// `URL(fileURLWithPath:)` of the resolved path, is scoped too), guarded by a lock held only
    /// to look up or update one entry (a start or stop costs one hash of the URL's string and
    /// one lock). It holds at most ``registryCapacity`` URLs: when full, the least recently
    /// registered URL with no access started is dropped (its start then returns `false`, as on
    /// macOS when a URL's scope is gone). A URL with access started is never dropped; if every
    /// entry has access started, a new scoped URL is not registered.
    public enum SecurityScope {
        /// Most scoped URLs remembered at once (see "The registry").
        public static let registryCapacity = 4096

        // MARK: - Application identity

        private static let chosenIdentifier = Locked<IdentifierState>(IdentifierState())

        private struct IdentifierState {
            var set: String?
            var used: String?
        }

        /// The identity whose key signs and verifies this process's security-scoped bookmarks.
        ///
        /// In order: `Bundle.main.bundleIdentifier` when the program has one; otherwise the
        /// identifier set with ``setApplicationIdentifier(_:)``; otherwise the name of the running
        /// executable (`/proc/self/exe`, so a changed `argv[0]` does not change it). Once a
        /// security-scoped bookmark has been made or resolved, the identity is fixed for the life
        /// of the process.
        public static var applicationIdentifier: String {
            chosenIdentifier.withLock { state in
                if let used = state.used { return used }
                let identity = Bundle.main.bundleIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? state.set ?? executableName()
                return identity
            }
        }

        /// Sets the application identity, once, at start-up, for programs without a bundle
        /// identifier (the usual case on Linux), e.g. `"com.example.PhotoBrowser"`.
        ///
        /// - Parameter identifier: One path component: not empty, no `/`, not `.` or `..`.
        /// - Returns: `false`, changing nothing, when an identity was set already, when a scoped
        ///   bookmark has already been made or resolved with another identity, or when
        ///   `identifier` is not one path component.
        @discardableResult
        public static func setApplicationIdentifier(_ identifier: String) -> Bool {
            guard validIdentifier(identifier) else { return false }
            return chosenIdentifier.withLock { state in
                guard state.set == nil, state.used == nil || state.used == identifier else { return false }
                state.set = identifier
                return true
            }
        }

        /// Where this application's signing key lives (see "Where the key lives"), or `nil` when
        /// neither `XDG_DATA_HOME` nor `HOME` is an absolute path.
        public static var keyLocation: URL? {
            SigningKey.defaultLocation(applicationID: applicationIdentifier).map {
                fileURL(path: $0, isDirectory: false)
            }
        }

        static func validIdentifier(_ identifier: String) -> Bool {
            !identifier.isEmpty && !identifier.contains("/") && identifier != "." && identifier != ".."
                && !identifier.utf8.contains(0)
        }

        /// The executable's file name, from `/proc/self/exe`; `argv[0]`'s when that cannot be read.
        static func executableName() -> String {
            var buffer = [CChar](repeating: 0, count: 4097)
            let count = readlink("/proc/self/exe", &buffer, 4096)
            if count > 0 {
                let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if let name = path.split(separator: "/").last, validIdentifier(String(name)) { return String(name) }
            }
            let name = ProcessInfo.processInfo.processName
            return validIdentifier(name) ? name : "unnamed-application"
        }

        /// The identity fixed by first use, and its key (loaded, or created, once per process).
        static func signingKey() throws(SecurityScopeError) -> (identity: String, key: SigningKey) {
            let identity = chosenIdentifier.withLock { state -> String in
                if let used = state.used { return used }
                let identity = Bundle.main.bundleIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? state.set ?? executableName()
                state.used = identity
                return identity
            }
            let key = try keys.withLock { (cache: inout [String: SigningKey]) throws(SecurityScopeError) -> SigningKey in
                if let key = cache[identity] { return key }
                let key = try SigningKey.forApplication(identity)
                cache[identity] = key
                return key
            }
            return (identity, key)
        }

        private static let keys = Locked<[String: SigningKey]>([:])

        // MARK: - Started access

        /// Whether `url` came from a security-scoped resolution in this process and is still
        /// registered (see "The registry").
        public static func isScoped(_ url: URL) -> Bool {
            ScopeRegistry.shared.entry(for: url) != nil
        }

        /// How many starts of `url` are not yet balanced by a stop (0 for a URL that is not scoped).
        public static func accessCount(of url: URL) -> Int {
            ScopeRegistry.shared.entry(for: url)?.starts ?? 0
        }

        /// Opens the object a security-scoped URL names, enforcing its scope: the Linux counterpart
        /// of the sandbox check macOS makes when a scoped file is opened.
        ///
        /// The URL must come from resolving security-scoped bookmark data in this process, with its
        /// access started. The object is opened without following a symbolic link at its last
        /// component and must be the very object the resolution found (same device and inode):
        /// a file swapped in at that path since is refused.
        ///
        /// - Parameters:
        ///   - url: The URL `URL(resolvingBookmarkData:options: .withSecurityScope, …)` returned.
        ///   - access: Reading, writing or both; writing is refused for data made with
        ///     `.securityScopeAllowOnlyReadAccess`.
        /// - Returns: A file handle that closes its descriptor when released.
        /// - Throws: `CocoaError`: `.fileReadNoPermission` for a URL that is not scoped or whose
        ///   access was not started, or that now names another object; `.fileWriteNoPermission`
        ///   for write access in a read-only scope; the open's own error otherwise (the
        ///   `FileSystemError` is in `userInfo[NSUnderlyingErrorKey]`).
        public static func open(_ url: URL, for access: Access) throws -> FileHandle {
            guard let entry = ScopeRegistry.shared.entry(for: url), entry.starts > 0 else {
                throw CocoaError(
                    .fileReadNoPermission,
                    userInfo: [
                        NSURLErrorKey: url, NSFilePathErrorKey: url.path,
                        NSDebugDescriptionErrorKey: "no security-scoped access to \(url.path) was started in this process",
                    ])
            }
            if entry.readOnly && access != .reading {
                throw CocoaError(
                    .fileWriteNoPermission,
                    userInfo: [
                        NSURLErrorKey: url, NSFilePathErrorKey: url.path,
                        NSDebugDescriptionErrorKey: "the bookmark's security scope allows reading only",
                    ])
            }
            var options: OwnedDescriptor.OpenOptions = [.noFollow]
            switch access {
            case .reading: options.insert(.readOnly)
            case .writing: options.insert(.writeOnly)
            case .readingAndWriting: options.insert(.readWrite)
            }
            let path = PathBytes(entry.path).filePath
            let opened = Result { () throws(FileSystemError) -> OwnedDescriptor in
                let descriptor = try Directory.current.open(path, options: options, policy: .unconfined)
                let status = try descriptor.status()
                guard status.device == entry.device, status.inode == entry.inode else {
                    throw FileSystemError(syscall: "fstat", errno: .permissionDenied, path: path)
                }
                return descriptor
            }
            switch opened {
            case .success(let descriptor):
                guard let raw = descriptor.rawValue else { throw CocoaError(.fileReadUnknown) }
                let copy = dup(raw)
                guard copy >= 0 else {
                    throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path])
                }
                return FileHandle(fileDescriptor: copy, closeOnDealloc: true)
            case .failure(let error):
                let code: CocoaError.Code =
                    switch error.errno {
                    case .noSuchFileOrDirectory: .fileReadNoSuchFile
                    case .permissionDenied, .notPermitted: .fileReadNoPermission
                    default: .fileReadUnknown
                    }
                throw CocoaError(
                    code,
                    userInfo: [
                        NSURLErrorKey: url, NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error,
                        NSDebugDescriptionErrorKey: error.description,
                    ])
            }
        }

        /// The access ``open(_:for:)`` asks for.
        public enum Access: Sendable, Hashable {
            /// `O_RDONLY`.
            case reading
            /// `O_WRONLY`.
            case writing
            /// `O_RDWR`.
            case readingAndWriting
        }
    }

    extension FileHandle {
        /// Opens the object a security-scoped URL names, enforcing its scope: see
        /// ``SecurityScope/open(_:for:)``.
        ///
        /// - Throws: `CocoaError`, as ``SecurityScope/open(_:for:)``.
        public convenience init(forSecurityScopedURL url: URL, access: SecurityScope.Access) throws {
            let handle = try SecurityScope.open(url, for: access)
            let copy = dup(handle.fileDescriptor)
            guard copy >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url]) }
            self.init(fileDescriptor: copy, closeOnDealloc: true)
        }
    }
#endif
