// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SystemPackage

    // Core Foundation's bookmark, alias and file-reference functions, with the signatures Swift
    // gives them on macOS (`Unmanaged` results to take with `takeRetainedValue()`, `CFError`
    // out-parameters). Each behaves as the `URL` call it names; a failure returns `nil` (or
    // `false`) and, when `error` is not `nil`, stores a retained `CFError` in the Cocoa domain with
    // the code and `userInfo` the `URL` call would throw. The allocator is ignored (only the
    // default exists, see `CFAllocator`).

    /// Creates bookmark data for a URL: Apple's `CFURLCreateBookmarkData`. See
    /// `URL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`.
    ///
    /// - Parameters:
    ///   - allocator: Ignored (`nil` or `kCFAllocatorDefault`).
    ///   - url: The file URL to bookmark.
    ///   - options: Apple's creation options; `.withSecurityScope` signs the data.
    ///   - resourcePropertiesToInclude: An array of resource keys (`kCFURLNameKey`, …), or `nil`.
    ///   - relativeToURL: A base for a document-relative bookmark, or `nil`.
    ///   - error: When not `nil`, receives a retained `CFError` on failure.
    /// - Returns: The data, retained; `nil` on failure.
    public func CFURLCreateBookmarkData(
        _ allocator: CFAllocator!, _ url: CFURL!, _ options: CFURLBookmarkCreationOptions,
        _ resourcePropertiesToInclude: CFArray!, _ relativeToURL: CFURL!, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>!
    ) -> Unmanaged<CFData>! {
        reporting(error) { () throws -> CFData? in
            guard let url else { return nil }
            let data = try BookmarkCalls.create(
                url as URL, options: URL.BookmarkCreationOptions(rawValue: options.rawValue),
                keys: resourceKeys(resourcePropertiesToInclude), relativeTo: relativeToURL.map { $0 as URL })
            return NSData(data: data)
        }
    }

    /// Resolves bookmark data: Apple's `CFURLCreateByResolvingBookmarkData`. See
    /// `URL(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)`.
    ///
    /// - Parameters:
    ///   - allocator: Ignored (`nil` or `kCFAllocatorDefault`).
    ///   - bookmark: The bookmark data.
    ///   - options: Apple's resolution options; `.cfurlBookmarkResolutionWithSecurityScope` checks
    ///     the signature.
    ///   - relativeToURL: For a document-relative bookmark, the base as it is now, or `nil`.
    ///   - resourcePropertiesToInclude: Accepted and not prefetched (Foundation on Linux has no
    ///     resource-value cache on a URL to fill).
    ///   - isStale: When not `nil`, set on success.
    ///   - error: When not `nil`, receives a retained `CFError` on failure.
    /// - Returns: The URL, retained; `nil` on failure.
    public func CFURLCreateByResolvingBookmarkData(
        _ allocator: CFAllocator!, _ bookmark: CFData!, _ options: CFURLBookmarkResolutionOptions, _ relativeToURL: CFURL!,
        _ resourcePropertiesToInclude: CFArray!, _ isStale: UnsafeMutablePointer<DarwinBoolean>!,
        _ error: UnsafeMutablePointer<Unmanaged<CFError>?>!
    ) -> Unmanaged<CFURL>! {
        reporting(error) { () throws -> CFURL? in
            guard let bookmark else { return nil }
            let found = try BookmarkCalls.resolve(
                Data(referencing: bookmark), options: URL.BookmarkResolutionOptions(rawValue: options.rawValue),
                relativeTo: relativeToURL.map { $0 as URL })
            isStale?.pointee = DarwinBoolean(found.isStale)
            return found.url as NSURL
        }
    }

    /// The resource values stored in bookmark data, by key: Apple's
    /// `CFURLCreateResourcePropertiesForKeysFromBookmarkData`. See
    /// `URL.resourceValues(forKeys:fromBookmarkData:)`. Values are `NSString`, `NSNumber`, `NSDate`,
    /// `NSURL` or `NSData`, keyed by the key strings.
    ///
    /// - Returns: `nil` when `bookmark` is not bookmark data.
    public func CFURLCreateResourcePropertiesForKeysFromBookmarkData(
        _ allocator: CFAllocator!, _ resourcePropertiesToReturn: CFArray!, _ bookmark: CFData!
    ) -> Unmanaged<CFDictionary>! {
        guard let bookmark,
            let values = NSURL.resourceValues(
                forKeys: resourceKeys(resourcePropertiesToReturn), fromBookmarkData: Data(referencing: bookmark))
        else { return nil }
        let dictionary = NSMutableDictionary()
        for (key, value) in values { dictionary.setObject(foundationObject(value), forKey: NSString(string: key.rawValue)) }
        return .passRetained(dictionary)
    }

    /// One resource value stored in bookmark data: Apple's
    /// `CFURLCreateResourcePropertyForKeyFromBookmarkData`.
    ///
    /// - Returns: `nil` when the value is not in the data, or `bookmark` is not bookmark data.
    public func CFURLCreateResourcePropertyForKeyFromBookmarkData(
        _ allocator: CFAllocator!, _ resourcePropertyKey: CFString!, _ bookmark: CFData!
    ) -> Unmanaged<CFTypeRef>! {
        guard let resourcePropertyKey, let bookmark else { return nil }
        let key = URLResourceKey(rawValue: String(describing: resourcePropertyKey))
        guard let values = NSURL.resourceValues(forKeys: [key], fromBookmarkData: Data(referencing: bookmark)),
            let value = values[key]
        else { return nil }
        return .passRetained(foundationObject(value))
    }

    /// The bookmark data in an alias file: Apple's `CFURLCreateBookmarkDataFromFile`. See
    /// `URL.bookmarkData(withContentsOf:)`.
    public func CFURLCreateBookmarkDataFromFile(
        _ allocator: CFAllocator!, _ fileURL: CFURL!, _ errorRef: UnsafeMutablePointer<Unmanaged<CFError>?>!
    ) -> Unmanaged<CFData>! {
        reporting(errorRef) { () throws -> CFData? in
            guard let fileURL else { return nil }
            return NSData(data: try URL.bookmarkData(withContentsOf: fileURL as URL))
        }
    }

    /// Writes an alias file: Apple's `CFURLWriteBookmarkDataToFile`. See
    /// `URL.writeBookmarkData(_:to:)`. `options` is unused, as on macOS.
    public func CFURLWriteBookmarkDataToFile(
        _ bookmarkRef: CFData!, _ fileURL: CFURL!, _ options: CFURLBookmarkFileCreationOptions,
        _ errorRef: UnsafeMutablePointer<Unmanaged<CFError>?>!
    ) -> Bool {
        let written = reporting(errorRef) { () throws -> NSNumber? in
            guard let bookmarkRef, let fileURL else { return nil }
            try URL.writeBookmarkData(Data(referencing: bookmarkRef), to: fileURL as URL)
            return NSNumber(value: true)
        }
        written?.release()
        return written != nil
    }

    /// Bookmark data made from a legacy Alias Manager record (`alis` version 2 or 3): Apple's
    /// `CFURLCreateBookmarkDataFromAliasRecord`, deprecated by Apple "only to convert Carbon
    /// AliasRecords". The record is kept inside the data, as Apple keeps it.
    ///
    /// - Returns: `nil` when the bytes are not an Alias Manager record.
    @available(macOS, deprecated: 10.16, message: "The Carbon Alias Manager is deprecated. This function should only be used to convert Carbon AliasRecords to bookmark data.")
    public func CFURLCreateBookmarkDataFromAliasRecord(_ allocatorRef: CFAllocator!, _ aliasRecordDataRef: CFData!)
        -> Unmanaged<CFData>!
    {
        guard let aliasRecordDataRef else { return nil }
        let made = Result { () throws(BookmarkError) -> [UInt8] in
            try Bookmark(aliasRecord: [UInt8](Data(referencing: aliasRecordDataRef))).data()
        }
        guard case .success(let bytes) = made else { return nil }
        return .passRetained(NSData(data: Data(bytes)))
    }

    /// A file-reference URL for a file URL: Apple's `CFURLCreateFileReferenceURL`. See
    /// `NSURL.fileReferenceURL()`.
    public func CFURLCreateFileReferenceURL(
        _ allocator: CFAllocator!, _ url: CFURL!, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>!
    ) -> Unmanaged<CFURL>! {
        reporting(error) { () throws -> CFURL? in
            guard let url else { return nil }
            if url.isFileReferenceURL() { return url }
            guard let path = fileSystemPath(of: url as URL) else { throw unusable(url as URL) }
            switch Result(catching: { () throws(BookmarkError) -> FileReferenceURL in try FileReferenceURL(for: path) }) {
            case .success(let reference):
                return FileReferenceNSURL(reference: reference)
            case .failure(let failure):
                throw CocoaError.bookmark(failure, .creating, url: url as URL)
            }
        }
    }

    /// The file-path URL of a file-reference URL (the file's current path), or a copy of a
    /// file-path URL: Apple's `CFURLCreateFilePathURL`. This, unlike Foundation's `URL.path` on
    /// Linux, follows the file wherever it moved on its volume (see "Porting from macOS").
    public func CFURLCreateFilePathURL(
        _ allocator: CFAllocator!, _ url: CFURL!, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>!
    ) -> Unmanaged<CFURL>! {
        reporting(error) { () throws -> CFURL? in
            guard let url else { return nil }
            guard url.isFileURL else { throw unusable(url as URL) }
            if let reference = url as? FileReferenceNSURL { return try reference.currentPathURL() as NSURL }
            guard url.isFileReferenceURL() else { return url.copy() as? NSURL }
            return try currentFilePathURL(ofReference: url as URL) as NSURL
        }
    }

    /// Whether a URL is a file-reference URL: Apple's `CFURLIsFileReferenceURL`.
    public func CFURLIsFileReferenceURL(_ url: CFURL!) -> Bool {
        url?.isFileReferenceURL() ?? false
    }

    /// Apple's `CFURLStartAccessingSecurityScopedResource`: see
    /// `URL.startAccessingSecurityScopedResource()`.
    public func CFURLStartAccessingSecurityScopedResource(_ url: CFURL!) -> Bool {
        url.map { ScopeRegistry.shared.start($0 as URL) } ?? false
    }

    /// Apple's `CFURLStopAccessingSecurityScopedResource`: see
    /// `URL.stopAccessingSecurityScopedResource()`.
    public func CFURLStopAccessingSecurityScopedResource(_ url: CFURL!) {
        if let url { ScopeRegistry.shared.stop(url as URL) }
    }

    // MARK: - Helpers

    /// Runs `body`; on a thrown error stores it, retained, as a `CFError` in `error` and returns
    /// `nil`. A `nil` result without an error is reported as `.fileReadUnknown` (a `nil` argument).
    private func reporting<Object: AnyObject>(
        _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws -> Object?
    ) -> Unmanaged<Object>? {
        do {
            if let object = try body() { return .passRetained(object) }
            error?.pointee = .passRetained(
                NSError(domain: NSCocoaErrorDomain, code: CocoaError.Code.fileReadUnknown.rawValue, userInfo: [
                    NSDebugDescriptionErrorKey: "a required argument was NULL"
                ]))
        } catch let failure as CocoaError {
            error?.pointee = .passRetained(
                NSError(domain: NSCocoaErrorDomain, code: failure.code.rawValue, userInfo: failure.userInfo))
        } catch let failure {
            error?.pointee = .passRetained(failure as NSError)
        }
        return nil
    }

    /// The resource keys in a `CFArray` of key strings.
    private func resourceKeys(_ array: CFArray?) -> [URLResourceKey] {
        guard let array else { return [] }
        return array.compactMap { element in
            if let text = element as? String { return URLResourceKey(rawValue: text) }
            if let key = element as? URLResourceKey { return key }
            return nil
        }
    }

    /// A resource value as the object Core Foundation hands out for it.
    private func foundationObject(_ value: Any) -> AnyObject {
        switch value {
        case let text as String: return NSString(string: text)
        case let number as NSNumber: return number
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let url as URL: return url as NSURL
        case let data as Data: return NSData(data: data)
        case let type as URLFileResourceType: return NSString(string: type.rawValue)
        default: return value as AnyObject
        }
    }
#endif
