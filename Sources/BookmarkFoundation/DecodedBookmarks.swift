// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkFormat
    import BookmarkKit
    import Foundation
    import SecureFiles

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
        /// bookmarks of one folder share).
        private struct Key: Hashable {
            let bytes: [UInt8]
            func hash(into hasher: inout Hasher) {
                bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            /// One `memcmp` (Array's `==` compares element by element: a tenth of a cache hit).
            static func == (lhs: Key, rhs: Key) -> Bool {
                lhs.bytes.withUnsafeBytes { left in rhs.bytes.withUnsafeBytes { sameBytes(left, $0) } }
            }
        }

        /// A decoded bookmark, whether it names a directory, and the URL its last resolution made
        /// (most resolutions of one bookmark find the same path, and building a `URL` was a sixth
        /// of the call).
        private struct Entry {
            var bookmark: Bookmark
            var isDirectory: Bool
            var lastURL: (path: [UInt8], url: URL)?

            init(bookmark: Bookmark) {
                self.bookmark = bookmark
                isDirectory = bookmark.record.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) ?? false
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

        /// The entry for `data`: the recent one, a cached one, or a new one (decoded and cached).
        private func entry(for data: Data) throws(BookmarkError) -> (key: Key, entry: Entry) {
            if let recent = state.withLock({ $0.recent }),
                data.withUnsafeBytes({ given in recent.key.bytes.withUnsafeBytes { sameBytes(given, $0) } })
            {
                return recent
            }
            let key = Key(bytes: [UInt8](data))
            if let hit = state.withLock({ $0.byData[key] }) { return (key, hit) }
            let entry = Entry(bookmark: try Bookmark(data: key.bytes))
            state.withLock { state in
                guard state.byData[key] == nil else { return }
                if state.order.count >= Self.capacity {
                    state.byData[state.order.removeFirst()] = nil
                }
                state.byData[key] = entry
                state.order.append(key)
            }
            return (key, entry)
        }

        /// Resolves `data` with `options`: the decoded bookmark from the cache, and the file URL of
        /// the path found, reused when it is the path the last resolution of these bytes found.
        func resolve(_ data: Data, options: ResolutionOptions) throws(BookmarkError) -> (url: URL, isStale: Bool) {
            var (key, entry) = try entry(for: data)
            let resolution = try entry.bookmark.resolve(options)
            let path = PathBytes(resolution.path).bytes
            let url: URL
            if let last = entry.lastURL, last.path.withUnsafeBytes({ old in path.withUnsafeBytes { sameBytes(old, $0) } }) {
                url = last.url
            } else {
                url = fileURL(bytes: path, isDirectory: entry.isDirectory)
                entry.lastURL = (path, url)
            }
            let remembered = entry
            state.withLock { state in
                if state.byData[key] != nil { state.byData[key] = remembered }
                state.recent = (key, remembered)
            }
            return (url, resolution.isStale)
        }
    }

    /// Whether two buffers hold the same bytes (one `memcmp`).
    private func sameBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard let l = left.baseAddress, let r = right.baseAddress else { return true }
        return memcmp(l, r, left.count) == 0
    }
#endif
