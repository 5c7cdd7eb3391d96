// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkFormat
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    /// What every spelling of Apple's bookmark calls (`URL`, `NSURL`, Core Foundation) does, once.
    enum BookmarkCalls {
        /// Bookmark data for `url`; signed with this application's key for `.withSecurityScope`.
        static func create(
            _ url: URL, options: URL.BookmarkCreationOptions, keys: [URLResourceKey], relativeTo base: URL?
        ) throws -> Data {
            guard let path = fileSystemPathBytes(of: url) else { throw unusable(url) }
            var baseDirectory: FilePath?
            if let base {
                guard let directory = BookmarkFoundation.baseDirectory(of: base) else { throw unusable(base) }
                baseDirectory = directory
            }
            let key: SigningKey?
            if options.contains(.withSecurityScope) {
                switch Result(catching: { () throws(SecurityScopeError) -> SigningKey in try SecurityScope.signingKey().key }) {
                case .success(let loaded): key = loaded
                case .failure(let error): throw CocoaError.securityScope(error, url: url)
                }
            } else {
                key = nil
            }
            let kitOptions = BookmarkKit.BookmarkCreationOptions(rawValue: UInt32(truncatingIfNeeded: options.rawValue))
            let resourceKeys = keys.isEmpty ? [] : Set(keys.map(\.rawValue)).sorted().map(ResourceKey.init(rawValue:))
            let made = Result { () throws(BookmarkError) -> Data in
                let toData = { (bytes: UnsafeRawBufferPointer) in
                    bytes.baseAddress.map { Data(bytes: $0, count: bytes.count) } ?? Data()
                }
                guard let key else {
                    // Unsigned, a new bookmark's bytes are written from the file's facts (no
                    // record, no bookmark value).
                    return try Bookmark.createData(
                        pathBytes: path, options: kitOptions, resourceKeys: resourceKeys, relativeTo: baseDirectory, toData)
                }
                let bookmark = try Bookmark.create(
                    pathBytes: path, options: kitOptions, resourceKeys: resourceKeys, relativeTo: baseDirectory)
                return try key.sign(bookmark).data(toData)
            }
            switch made {
            case .success(let data): return data
            case .failure(let error): throw CocoaError.bookmark(error, .creating, url: url)
            }
        }

        /// The URL bookmark data resolves to, and whether it is stale. With `.withSecurityScope`,
        /// the data's signature is checked first with this application's key, and the URL is
        /// registered as scoped.
        static func resolve(
            _ data: Data, options: URL.BookmarkResolutionOptions, relativeTo base: URL?
        ) throws -> (url: URL, isStale: Bool) {
            var kitOptions = ResolutionOptions()
            if let timeout = options.volumeResponseTimeout { kitOptions.volumeResponseTimeout = timeout }
            if let base {
                guard let directory = baseDirectory(of: base) else { throw unusable(base) }
                kitOptions.relativeTo = directory
            }
            if options.contains(.withSecurityScope) { return try resolveScoped(data, options: kitOptions) }
            let outcome = Result { () throws(BookmarkError) -> (url: URL, isStale: Bool) in
                try DecodedBookmarks.shared.resolve(data, options: kitOptions)
            }
            switch outcome {
            case .success(let found): return found
            case .failure(let error): throw CocoaError.bookmark(error, .resolving)
            }
        }

        private static func resolveScoped(_ data: Data, options: ResolutionOptions) throws -> (url: URL, isStale: Bool) {
            let outcome = Result { () throws(SecurityScopeError) -> (url: URL, resolution: Resolution, readOnly: Bool) in
                let (identity, key) = try SecurityScope.signingKey()
                return try DecodedBookmarks.shared.resolveScoped(data, options: options, identity: identity, signingKey: key)
            }
            switch outcome {
            case .success(let found):
                ScopeRegistry.shared.register(
                    found.url, path: PathBytes(found.resolution.path).bytes, device: found.resolution.fileID.device,
                    inode: found.resolution.fileID.inode, readOnly: found.readOnly)
                return (found.url, found.resolution.isStale)
            case .failure(let error):
                throw CocoaError.securityScope(error, url: nil)
            }
        }
    }
#endif
