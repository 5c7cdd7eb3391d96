// SPDX-License-Identifier: Apache-2.0
// Security-scoped bookmark code written the way Apple's documentation ("Enabling Security-Scoped
// Bookmark and URL Access", `startAccessingSecurityScopedResource()`) and sandboxed apps write it.
// Nothing here names a type of this package: apart from the import of BookmarkFoundation on Linux,
// the file compiles unchanged on macOS.

import Foundation

#if os(Linux)
    import BookmarkFoundation
#endif

/// Remembers a folder the user chose, and reopens it at the next launch, as a sandboxed app does.
final class FolderAccessStore {
    enum AccessError: Error {
        case noBookmark
        case accessDenied
    }

    let storeURL: URL
    let readOnly: Bool

    init(storeURL: URL, readOnly: Bool = false) {
        self.storeURL = storeURL
        self.readOnly = readOnly
    }

    /// Called with the URL an open panel returned.
    func remember(_ url: URL) throws {
        var options: URL.BookmarkCreationOptions = .withSecurityScope
        if readOnly { options.insert(.securityScopeAllowOnlyReadAccess) }
        let data = try url.bookmarkData(options: options, includingResourceValuesForKeys: nil, relativeTo: nil)
        try data.write(to: storeURL, options: .atomic)
    }

    /// Resolves the stored bookmark and runs `body` with access started, re-creating the bookmark
    /// when it is stale (the documented advice). Returns what `body` returned and whether it was stale.
    func withAccess<T>(_ body: (URL) throws -> T) throws -> (value: T, wasStale: Bool) {
        guard let data = try? Data(contentsOf: storeURL) else { throw AccessError.noBookmark }
        var isStale = false
        let url = try URL(resolvingBookmarkData: data, options: .withSecurityScope, relativeTo: nil, bookmarkDataIsStale: &isStale)
        guard url.startAccessingSecurityScopedResource() else { throw AccessError.accessDenied }
        defer { url.stopAccessingSecurityScopedResource() }
        if isStale { try remember(url) }
        return (try body(url), isStale)
    }
}

/// The NSURL form some older code uses.
func resolveSecurityScoped(_ data: Data) -> NSURL? {
    var isStale: ObjCBool = false
    guard let url = try? NSURL(
        resolvingBookmarkData: data, options: [.withSecurityScope, .withoutUI], relativeTo: nil, bookmarkDataIsStale: &isStale)
    else { return nil }
    return url.startAccessingSecurityScopedResource() ? url : nil
}
