// SPDX-License-Identifier: Apache-2.0
// Bookmark code written the way Apple's documentation writes it ("Locating Files Using Bookmarks",
// `URL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`,
// `URL(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)`,
// `URL.resourceValues(forKeys:fromBookmarkData:)`). Nothing here names a type of this package:
// apart from the import of BookmarkFoundation on Linux, the file compiles unchanged on macOS.

import Foundation

#if os(Linux)
    import BookmarkFoundation
#endif

/// A document store that remembers files by bookmark, as an app would.
final class RecentDocuments {
    /// Where the bookmark data is kept between launches.
    let storeURL: URL

    init(storeURL: URL) {
        self.storeURL = storeURL
    }

    /// Makes bookmark data for `url` and stores it.
    func remember(_ url: URL) throws {
        let bookmarkData = try url.bookmarkData(
            options: [], includingResourceValuesForKeys: [.nameKey, .fileSizeKey, .creationDateKey], relativeTo: nil)
        try bookmarkData.write(to: storeURL, options: .atomic)
    }

    /// Reads the stored bookmark data, resolves it, and re-creates the bookmark when it is stale.
    /// Returns the URL and whether the stored bookmark was stale.
    func recall() throws -> (url: URL, wasStale: Bool) {
        let bookmarkData = try Data(contentsOf: storeURL)
        var isStale = false
        let url = try URL(
            resolvingBookmarkData: bookmarkData, options: .withoutUI, relativeTo: nil, bookmarkDataIsStale: &isStale)
        if isStale {
            // The documented advice: create a new bookmark using the returned URL and use it in place
            // of any stored copies.
            let fresh = try url.bookmarkData(
                options: [], includingResourceValuesForKeys: [.nameKey, .fileSizeKey, .creationDateKey], relativeTo: nil)
            try fresh.write(to: storeURL, options: .atomic)
        }
        return (url, isStale)
    }

    /// What the stored bookmark says about its file, read without resolving it (works offline, and
    /// after the file is gone).
    func lastKnown() -> (name: String?, path: String?, size: Int?)? {
        guard let bookmarkData = try? Data(contentsOf: storeURL),
            let values = URL.resourceValues(forKeys: [.nameKey, .pathKey, .fileSizeKey], fromBookmarkData: bookmarkData)
        else { return nil }
        return (values.name, values.path, values.fileSize)
    }

    /// Resolves the stored bookmark, telling "gone" apart from other failures.
    func recallOrExplain() -> String {
        do {
            let (url, _) = try recall()
            return "found at \(url.path)"
        } catch CocoaError.fileNoSuchFile {
            let path = lastKnown()?.path ?? "?"
            return "gone (last seen at \(path))"
        } catch {
            return "failed: \(error.localizedDescription)"
        }
    }
}

/// The bookmark helpers from Apple's documentation, in Swift.
func bookmarkForURL(_ url: URL) -> Data? {
    do {
        return try url.bookmarkData(options: .minimalBookmark, includingResourceValuesForKeys: nil, relativeTo: nil)
    } catch {
        return nil
    }
}

func urlForBookmark(_ bookmark: Data) -> URL? {
    var bookmarkIsStale = false
    do {
        return try URL(
            resolvingBookmarkData: bookmark, options: [.withoutUI, .withoutMounting], relativeTo: nil,
            bookmarkDataIsStale: &bookmarkIsStale)
    } catch {
        return nil
    }
}

/// A document-relative bookmark: the document and the file it refers to move together.
func relativeBookmark(to target: URL, from document: URL) throws -> Data {
    try target.bookmarkData(options: [], includingResourceValuesForKeys: nil, relativeTo: document)
}

func resolveRelativeBookmark(_ data: Data, from document: URL) throws -> (URL, Bool) {
    var isStale = false
    let url = try URL(resolvingBookmarkData: data, relativeTo: document, bookmarkDataIsStale: &isStale)
    return (url, isStale)
}
