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
                guard lhs.bytes.count == rhs.bytes.count else { return false }
                return lhs.bytes.withUnsafeBytes { left in
                    rhs.bytes.withUnsafeBytes { right in
                        guard let l = left.baseAddress, let r = right.baseAddress else { return true }
                        return memcmp(l, r, left.count) == 0
                    }
                }
            }
        }

        /// A decoded bookmark, and the URL its last resolution made (most resolutions of one
        /// bookmark find the same path, and building a `URL` was a sixth of the call).
        private struct Entry {
            var bookmark: Bookmark
            var lastURL: (path: [UInt8], isDirectory: Bool, url: URL)?
        }

        private struct State {
            var byData: [Key: Entry] = [:]
            var order: [Key] = []
        }

        private let state = Locked(State())

        /// The bookmark `data` decodes to, decoded once while it stays in the cache.
        func bookmark(for data: Data) throws(BookmarkError) -> Bookmark {
            try bookmark(for: Key(bytes: [UInt8](data)))
        }

        private func bookmark(for key: Key) throws(BookmarkError) -> Bookmark {
            if let hit = state.withLock({ $0.byData[key]?.bookmark }) { return hit }
            let decoded = try Bookmark(data: key.bytes)
            state.withLock { state in
                guard state.byData[key] == nil else { return }
                if state.order.count >= Self.capacity {
                    state.byData[state.order.removeFirst()] = nil
                }
                state.byData[key] = Entry(bookmark: decoded)
                state.order.append(key)
            }
            return decoded
        }

        /// Resolves `data` with `options`: the decoded bookmark from the cache, and the file URL of
        /// the path found, reused when it is the path the last resolution of these bytes found.
        func resolve(_ data: Data, options: ResolutionOptions) throws(BookmarkError) -> (url: URL, isStale: Bool) {
            let key = Key(bytes: [UInt8](data))
            let bookmark = try bookmark(for: key)
            let resolution = try bookmark.resolve(options)
            let isDirectory = bookmark.record.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) ?? false
            let path = PathBytes(resolution.path).bytes
            let remembered = state.withLock { $0.byData[key]?.lastURL }
            if let remembered, remembered.isDirectory == isDirectory, remembered.path == path {
                return (remembered.url, resolution.isStale)
            }
            let url = fileURL(bytes: path, isDirectory: isDirectory)
            state.withLock { $0.byData[key]?.lastURL = (path, isDirectory, url) }
            return (url, resolution.isStale)
        }
    }
#endif
