// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkFormat
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    /// The bookmarks `URL(resolvingBookmarkData:)` decoded lately, by their bytes.
    ///
    /// Apple's API hands over the same `Data` each time an app resolves a stored bookmark (often at
    /// every access). Decoding it and deriving what resolution compares were a quarter of that
    /// call's time on an unmoved file (perf, Docs/PERFORMANCE.md), and both depend on the bytes
    /// alone. A hit costs one hash of the bytes and one comparison.
    ///
    /// Bound: at most ``capacity`` bookmarks (each a few KB decoded), the oldest dropped first; one
    /// lock, held only to look up or insert.
    final class DecodedBookmarks: Sendable {
        static let shared = DecodedBookmarks()
        /// Most bookmarks kept.
        static let capacity = 128

        /// The bytes, hashed whole (`Data` hashes only its count and first 80 bytes, which
        /// bookmarks of one folder share), once: every resolution looks its key up again to store
        /// the URL it made, and hashing a kilobyte of bookmark data twice per call was 5 % of
        /// `URL(resolvingBookmarkData:)`.
        private struct Key: Hashable {
            let bytes: [UInt8]
            private let hash: Int

            init(bytes: [UInt8]) {
                self.bytes = bytes
                var hasher = Hasher()
                bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
                hash = hasher.finalize()
            }

            func hash(into hasher: inout Hasher) {
                hasher.combine(hash)
            }
            /// The hashes, then one `memcmp` (Array's `==` compares element by element: a tenth
            /// of a cache hit).
            static func == (lhs: Key, rhs: Key) -> Bool {
                lhs.hash == rhs.hash
                    && lhs.bytes.withUnsafeBytes { left in rhs.bytes.withUnsafeBytes { sameBytes(left, $0) } }
            }
        }

        /// A decoded bookmark, whether it names a directory, and the URL its last resolution made
        /// (most resolutions of one bookmark find the same path, and building a `URL` was a sixth
        /// of the call).
        /// One decoded bookmark and what its last resolution made. Immutable and shared: taking
        /// it out of the cache is one retain, where a struct of these fields was seven (a twelfth
        /// of an unmoved resolution's retains and releases). A change makes a new entry.
        private final class Entry: Sendable {
            let bookmark: Bookmark
            let isDirectory: Bool
            /// Compared by `FilePath`'s `==`: an unmoved file's result hands back the very path
            /// stored here (the bookmark's own), and arrays sharing storage compare equal at once.
            let lastURL: (path: FilePath, url: URL)?
            /// The application identity whose key verified these exact bytes (security scope): the
            /// same bytes under the same key verify the same way, so it is checked once.
            let verifiedBy: String?

            init(bookmark: Bookmark) {
                self.bookmark = bookmark
                isDirectory = bookmark.record.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) ?? false
                lastURL = nil
                verifiedBy = nil
            }

            private init(bookmark: Bookmark, isDirectory: Bool, lastURL: (path: FilePath, url: URL)?, verifiedBy: String?) {
                self.bookmark = bookmark
                self.isDirectory = isDirectory
                self.lastURL = lastURL
                self.verifiedBy = verifiedBy
            }

            /// This entry with the URL made for `path`.
            func with(lastURL: (path: FilePath, url: URL)) -> Entry {
                Entry(bookmark: bookmark, isDirectory: isDirectory, lastURL: lastURL, verifiedBy: verifiedBy)
            }

            /// This entry, verified by `identity`'s key.
            func with(verifiedBy identity: String) -> Entry {
                Entry(bookmark: bookmark, isDirectory: isDirectory, lastURL: lastURL, verifiedBy: identity)
            }
        }

        private struct State {
            var byData: [Key: Entry] = [:]
            var order: [Key] = []
            /// The entry used last, checked first with one `memcmp` (no hashing, no copy).
            var recent: (key: Key, entry: Entry)?
        }

        private let state = Locked(State())

        /// The bookmark `data` decodes to, decoded once while it stays in the cache.
        func bookmark(for data: Data) throws(BookmarkError) -> Bookmark {
            try entry(for: data).entry.bookmark
        }

        /// The entry for `data`: the recent one, a cached one, or a new one (decoded and cached);
        /// `isRecent` when it was the recent one.
        private func entry(for data: Data) throws(BookmarkError) -> (key: Key, entry: Entry, isRecent: Bool) {
            if let recent = state.withLock({ $0.recent }),
                data.withUnsafeBytes({ given in recent.key.bytes.withUnsafeBytes { sameBytes(given, $0) } })
            {
                return (recent.key, recent.entry, true)
            }
            let key = Key(bytes: [UInt8](data))
            if let hit = state.withLock({ $0.byData[key] }) { return (key, hit, false) }
            let entry = Entry(bookmark: try Bookmark(data: key.bytes))
            state.withLock { state in
                guard state.byData[key] == nil else { return }
                if state.order.count >= Self.capacity {
                    state.byData[state.order.removeFirst()] = nil
                }
                state.byData[key] = entry
                state.order.append(key)
            }
            return (key, entry, false)
        }

        /// Resolves `data` with `options`: the decoded bookmark from the cache, and the file URL of
        /// the path found, reused when it is the path the last resolution of these bytes found.
        func resolve(_ data: Data, options: ResolutionOptions) throws(BookmarkError) -> (url: URL, isStale: Bool) {
            let (key, entry, isRecent) = try entry(for: data)
            return try resolve(key, entry, isRecent: isRecent, options: options) { url, resolution in (url, resolution.isStale) }
        }

        /// Resolves security-scoped `data`: its signature checked with `signingKey` (of application
        /// `identity`) the first time these bytes are seen, then resolved as ``resolve(_:options:)``.
        ///
        /// - Returns: The URL, the resolution, and whether the scope is read-only.
        func resolveScoped(
            _ data: Data, options: ResolutionOptions, identity: String, signingKey: SigningKey
        ) throws(SecurityScopeError) -> (url: URL, resolution: Resolution, readOnly: Bool) {
            var (key, entry, isRecent): (Key, Entry, Bool)
            switch Result(catching: { () throws(BookmarkError) -> (Key, Entry, Bool) in try self.entry(for: data) }) {
            case .success(let found): (key, entry, isRecent) = found
            case .failure(let error):
                throw SecurityScopeError(.tampered, "the data does not decode: \(error.message)", bookmarkError: error)
            }
            if entry.verifiedBy != identity {
                _ = try signingKey.verify(key.bytes)
                entry = entry.with(verifiedBy: identity)
                isRecent = false  // changed: store it
            }
            let found: (url: URL, resolution: Resolution)
            switch Result(catching: { () throws(BookmarkError) -> (url: URL, resolution: Resolution) in
                try self.resolve(key, entry, isRecent: isRecent, options: options) { url, resolution in (url, resolution) }
            }) {
            case .success(let value): found = value
            case .failure(let error): throw SecurityScopeError(.resolution, error.description, bookmarkError: error)
            }
            let readOnly = entry.bookmark.creationOptions.contains(.securityScopeAllowOnlyReadAccess)
            return (found.url, found.resolution, readOnly)
        }

        /// Resolves `entry`'s bookmark and stores the entry back (as the recent one, with the URL
        /// made) unless it is the recent one already, unchanged: an unmoved file's resolution of the
        /// same `Data` again takes no lock after the look-up (the store replaced a whole entry in
        /// the dictionary under the lock: about a twelfth of the call, perf, Docs/PERFORMANCE.md).
        ///
        /// What the caller keeps of the result is `made` from it in place, so the result is not copied.
        private func resolve<R>(
            _ key: Key, _ entry: Entry, isRecent: Bool, options: ResolutionOptions, _ made: (URL, Resolution) -> R
        ) throws(BookmarkError) -> R {
            var entry = entry
            let resolution = try entry.bookmark.resolve(options)
            let path = resolution.path
            let url: URL
            if let last = entry.lastURL, last.path == path {
                url = last.url
                if isRecent { return made(url, resolution) }
            } else {
                url = fileURL(path: path, isDirectory: entry.isDirectory)
                entry = entry.with(lastURL: (path, url))
            }
            let remembered = entry
            state.withLock { state in
                if state.byData[key] != nil { state.byData[key] = remembered }
                state.recent = (key, remembered)
            }
            return made(url, resolution)
        }
    }

    /// Whether two buffers hold the same bytes (one `memcmp`).
    private func sameBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard let l = left.baseAddress, let r = right.baseAddress else { return true }
        return memcmp(l, r, left.count) == 0
    }
#endif
