// SPDX-License-Identifier: Apache-2.0
// Bookmark code in the NSURL and Core Foundation spellings, written the way Apple's documentation
// and older macOS code write them (`NSURL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`
// with an array of keys, the `ObjCBool` stale flag, `CFURLCreateBookmarkData` with `Unmanaged`
// results and a `CFError` out-parameter). Nothing here names a type of this package: apart from
// the import of BookmarkFoundation on Linux, the file compiles unchanged on macOS.

import Foundation

#if os(Linux)
    import BookmarkFoundation
#endif

// MARK: - NSURL

/// Bookmarks kept as NSURL code keeps them.
enum NSURLBookmarks {
    static func bookmark(for url: NSURL) throws -> Data {
        try url.bookmarkData(
            options: .suitableForBookmarkFile, includingResourceValuesForKeys: [.nameKey, .fileSizeKey], relativeTo: nil)
    }

    static func resolve(_ data: Data) throws -> (url: NSURL, isStale: Bool) {
        var isStale: ObjCBool = false
        let url = try NSURL(resolvingBookmarkData: data, options: .withoutUI, relativeTo: nil, bookmarkDataIsStale: &isStale)
        return (url, isStale.boolValue)
    }

    static func lastKnownName(_ data: Data) -> String? {
        NSURL.resourceValues(forKeys: [.nameKey, .pathKey], fromBookmarkData: data)?[.nameKey] as? String
    }

    static func makeAlias(of target: NSURL, at aliasURL: URL) throws {
        let data = try target.bookmarkData(options: .suitableForBookmarkFile, includingResourceValuesForKeys: nil, relativeTo: nil)
        try NSURL.writeBookmarkData(data, to: aliasURL, options: 0)
    }

    static func followAlias(at aliasURL: URL) throws -> NSURL {
        let data = try NSURL.bookmarkData(withContentsOf: aliasURL)
        var isStale: ObjCBool = false
        let viaData = try NSURL(resolvingBookmarkData: data, options: [], relativeTo: nil, bookmarkDataIsStale: &isStale)
        let direct = try NSURL(resolvingAliasFileAt: aliasURL, options: .withoutUI)
        precondition(viaData.path == direct.path)
        return direct
    }

    static func isReachable(_ url: NSURL) -> Bool {
        url.checkResourceIsReachableAndReturnError(nil)
    }
}

// MARK: - Core Foundation

/// Bookmarks kept as Core Foundation code keeps them.
enum CFBookmarks {
    struct Failure: Error {
        let underlying: Error
    }

    static func bookmark(for url: URL) throws -> Data {
        var error: Unmanaged<CFError>?
        let keys = [kCFURLNameKey, kCFURLFileSizeKey] as CFArray
        guard let data = CFURLCreateBookmarkData(kCFAllocatorDefault, url as CFURL, .suitableForBookmarkFile, keys, nil, &error)
        else { throw Failure(underlying: error!.takeRetainedValue() as Error) }
        return data.takeRetainedValue() as Data
    }

    static func resolve(_ data: Data) throws -> (url: URL, isStale: Bool) {
        var isStale: DarwinBoolean = false
        var error: Unmanaged<CFError>?
        guard
            let url = CFURLCreateByResolvingBookmarkData(
                kCFAllocatorDefault, data as CFData, [.cfurlBookmarkResolutionWithoutUIMask], nil, nil, &isStale, &error)
        else { throw Failure(underlying: error!.takeRetainedValue() as Error) }
        return (url.takeRetainedValue() as URL, isStale.boolValue)
    }

    static func storedName(_ data: Data) -> String? {
        guard let value = CFURLCreateResourcePropertyForKeyFromBookmarkData(kCFAllocatorDefault, kCFURLNameKey, data as CFData)
        else { return nil }
        return value.takeRetainedValue() as? String
    }

    static func storedValues(_ data: Data) -> [String: Any]? {
        let keys = [kCFURLNameKey, kCFURLPathKey, kCFURLFileSizeKey] as CFArray
        guard let values = CFURLCreateResourcePropertiesForKeysFromBookmarkData(kCFAllocatorDefault, keys, data as CFData)
        else { return nil }
        return values.takeRetainedValue() as? [String: Any]
    }

    static func writeAlias(_ data: Data, to aliasURL: URL) throws {
        var error: Unmanaged<CFError>?
        guard CFURLWriteBookmarkDataToFile(data as CFData, aliasURL as CFURL, 0, &error) else {
            throw Failure(underlying: error!.takeRetainedValue() as Error)
        }
    }

    static func readAlias(_ aliasURL: URL) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let data = CFURLCreateBookmarkDataFromFile(kCFAllocatorDefault, aliasURL as CFURL, &error) else {
            throw Failure(underlying: error!.takeRetainedValue() as Error)
        }
        return data.takeRetainedValue() as Data
    }

    // A reference stays a CFURL: bridging it to URL gives the file's path URL, on macOS as here.
    static func fileReference(_ url: CFURL) -> CFURL? {
        CFURLCreateFileReferenceURL(kCFAllocatorDefault, url, nil)?.takeRetainedValue()
    }

    static func currentPath(of reference: CFURL) -> String? {
        guard CFURLIsFileReferenceURL(reference),
            let url = CFURLCreateFilePathURL(kCFAllocatorDefault, reference, nil)
        else { return nil }
        return (url.takeRetainedValue() as URL).path
    }
}
