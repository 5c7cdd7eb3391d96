// SPDX-License-Identifier: Apache-2.0
import Foundation
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

/// The extended attribute that carries Finder info on Linux (`com.apple.FinderInfo` on macOS;
/// Linux only lets unprivileged users write the `user.` namespace).
package let finderInfoAttribute = "user.com.apple.FinderInfo"

/// What writing an alias file did.
public struct AliasFileWrite: Sendable, Hashable {
    /// Bytes written (56-byte header + data section).
    public var size: Int
    /// Whether the Finder-info attribute was written; `false` where the file system refuses
    /// extended attributes (the file is still an alias by its content).
    public var finderInfoWritten: Bool
}

/// What refreshing a bookmark or alias file did.
public struct FileRefresh: Sendable {
    /// The resolution of the file's old data.
    public var resolution: Resolution
    /// Whether the file was rewritten (it was stale).
    public var rewritten: Bool
    /// The container that was read and written back.
    public var container: BookmarkSource.Container
}

extension Bookmark {
    /// Reads bookmark data from its encoded bytes in any container we recognise: bookmark data, an
    /// alias file's data fork, a legacy `alis` record (Apple's
    /// `CFURLCreateBookmarkDataFromAliasRecord`), or base64 text of one of these.
    ///
    /// - Throws: ``BookmarkError`` `corruptData`.
    public init(anyContainer bytes: [UInt8]) throws(BookmarkError) {
        let source = try BookmarkError.decoding { () throws(BookmarkFormatError) in try BookmarkSource(decoding: bytes) }
        self.init(record: source.record)
    }

    /// Bookmark data built from a legacy Alias Manager record (`alis` version 2 or 3), as Apple's
    /// `CFURLCreateBookmarkDataFromAliasRecord` does: path, CNIDs, names, dates and volume facts,
    /// with the original record kept under `0xFE00`.
    ///
    /// - Throws: ``BookmarkError`` `corruptData` when the bytes are not a valid v2/v3 record.
    public init(aliasRecord bytes: [UInt8]) throws(BookmarkError) {
        guard AliasRecord.looksLikeAliasRecord(bytes) else {
            throw BookmarkError(.corruptData, "not an alis version 2 or 3 record")
        }
        let alias = try BookmarkError.decoding { () throws(BookmarkFormatError) in try AliasRecord(decoding: bytes) }
        let size = min(bytes.count, Int(UInt16(bytes[4]) << 8 | UInt16(bytes[5])))
        self.init(record: BookmarkRecord(aliasRecord: alias, originalBytes: Array(bytes.prefix(size))))
    }

    /// Writes this bookmark as a Finder alias file at `path` (Apple's `writeBookmarkData(_:to:)`):
    /// the 56-byte header and the data section, with the `user.com.apple.FinderInfo` attribute
    /// (`alis`/`MACS`, or `fdrp`/`MACS` for a folder, `kIsAlias` set). Atomic: a crash leaves the
    /// old file or the new one; a symlink at `path` is refused, never followed.
    ///
    /// - Throws: ``BookmarkError``: `corruptData` when the bookmark was not made with
    ///   ``BookmarkCreationOptions/suitableForBookmarkFile`` (as on macOS), or a file-system error.
    @discardableResult
    public func writeAliasFile(to path: FilePath) throws(BookmarkError) -> AliasFileWrite {
        guard creationOptions.contains(.suitableForBookmarkFile) else {
            throw BookmarkError(
                .corruptData, "alias files need bookmark data made with suitableForBookmarkFile",
                lastKnownPath: PathBytes(path).bytes)
        }
        let bytes = try BookmarkError.decoding { () throws(BookmarkFormatError) in try AliasFile(record: record).encoded() }
        let folder = record.resourceProperties.map { $0.flags & BookmarkPropertyFlags.isDirectory != 0 } ?? false
        let info = FinderInfo.alias(toFolder: folder).encoded
        let outcome = try Bookmark.publish(bytes, at: path, attributes: [ExtendedAttribute(name: finderInfoAttribute, value: info)])
        return AliasFileWrite(size: bytes.count, finderInfoWritten: outcome.unsupportedAttributes.isEmpty)
    }

    /// Reads the alias file (or bookmark file) at `path` (Apple's `bookmarkData(withContentsOf:)`):
    /// ours, macOS Finder aliases, and files holding a bare legacy `alis` record.
    ///
    /// - Throws: ``BookmarkError``: `notFound`, `permissionDenied`, `corruptData`.
    public init(contentsOfAliasFile path: FilePath) throws(BookmarkError) {
        let bytes = try Bookmark.readSmallFile(path)
        try self.init(anyContainer: bytes)
    }

    /// Whether `path` is an alias file: its Finder info has `kIsAlias`, or (where the attribute is
    /// missing, as after a copy to a file system without extended attributes) its content starts
    /// with the alias-file magic. Symlinks are followed; anything unreadable is not an alias.
    public static func isAliasFile(at path: FilePath) -> Bool {
        guard let file = try? Directory.current.open(path, options: [.readOnly, .nonBlocking]) else { return false }
        guard let status = try? file.status(), status.kind == .regular else { return false }
        if let raw = try? file.extendedAttribute(finderInfoAttribute), let info = try? FinderInfo(decoding: raw),
            info.isAlias
        {
            return true
        }
        guard let head = try? file.readPrefix(16) else { return false }
        return AliasFile.hasMagic(head)
    }

    /// Resolves the alias file at `path` (Apple's `URL(resolvingAliasFileAt:)`): when `path` is not
    /// an alias file it is returned as it is, matched by path.
    ///
    /// - Returns: The resolution, and whether `path` was an alias file.
    public static func resolveAliasFile(
        at path: FilePath, options: ResolutionOptions = ResolutionOptions(), volumes: MountedVolumes? = nil
    ) throws(BookmarkError) -> (resolution: Resolution?, wasAlias: Bool) {
        guard isAliasFile(at: path) else { return (nil, false) }
        let bookmark = try Bookmark(contentsOfAliasFile: path)
        return (try bookmark.resolve(options, volumes: volumes), true)
    }

    /// Resolves the bookmark or alias file at `path` and, when it is stale, rewrites it in place
    /// with fresh data for the resolved object: same container (bookmark data, base64 text, alias
    /// file or legacy `alis` record), every key of the old data that the fresh data lacks kept
    /// (unknown keys, stored resource values), the Finder-info attribute kept, the old signature
    /// dropped (re-signed with `signingKey` when given). Atomic, like ``writeAliasFile(to:)``.
    ///
    /// A legacy alias record (the file's own, or one kept under `0xFE00` in bookmark data) is
    /// pointed at the object as it is now, its other tags kept, as the Alias Manager's
    /// `FSUpdateAlias` did (Docs/FORMAT.md §5). It records no volume UUID, so it is resolved by
    /// path alone: a refresh follows a new file at the path (an atomic save), not a move.
    ///
    /// - Throws: ``BookmarkError`` from reading, resolving (the file is left alone) or writing;
    ///   `corruptData`, before anything is resolved, for a file with bytes after its bookmark
    ///   data (bookmarks stored back to back: a library file, which a rewrite of one bookmark
    ///   would cut down to its first).
    /// - Parameters:
    ///   - path: The bookmark or alias file (symbolic links followed to read it).
    ///   - options: As for ``resolve(_:volumes:)``.
    ///   - signingKey: Signs the fresh data (signed bookmarks, Docs/SECURITY.md).
    ///   - volumes: A mounted-volume table to reuse (the process's shared table when `nil`).
    ///   - syncingDirectory: Whether a rewrite also syncs the folder holding `path`, so
    ///     that the new name survives a power failure when this returns (the default). A batch that
    ///     rewrites many files in one folder passes `false` and syncs the folder once itself, as
    ///     ``writeAtomically(_:to:permissions:syncingDirectory:)`` allows (the file's data is
    ///     synced before its rename either way).
    public static func refreshFile(
        at path: FilePath, options: ResolutionOptions = ResolutionOptions(), signingKey: SigningKey? = nil,
        volumes: MountedVolumes? = nil, syncingDirectory: Bool = true
    ) throws(BookmarkError) -> FileRefresh {
        let bytes = try readSmallFile(path)
        let source = try BookmarkError.decoding(lastKnownPath: PathBytes(path).bytes) { () throws(BookmarkFormatError) in
            try BookmarkSource(decoding: bytes)
        }
        // Rewriting keeps one bookmark: bytes after it (a library's other bookmarks) would be lost.
        guard source.trailingByteCount == 0 else {
            throw BookmarkError(.corruptData, Self.trailingMessage(source), lastKnownPath: PathBytes(path).bytes)
        }
        let old = Bookmark(record: source.record)
        let resolution = try old.resolve(options, volumes: volumes)
        guard resolution.isStale else {
            return FileRefresh(resolution: resolution, rewritten: false, container: source.container)
        }
        let (bookmark, alias) = try refreshed(old, resolution: resolution, signingKey: signingKey, volumes: volumes)
        var out: [UInt8]
        var attributes: [ExtendedAttribute] = []
        do {
            switch source.container {
            case .aliasRecord:
                // Its own container: an `alis` record (the bookmark-data form of it only when the
                // old record could not be read back, which decoding it just now rules out).
                if let alias { out = alias } else { out = try bookmark.record.encoded() }
            case .aliasFile:
                out = try AliasFile(record: bookmark.record).encoded()
                let existing = try? Directory.current.open(path, options: [.readOnly, .nonBlocking])
                    .extendedAttribute(finderInfoAttribute)
                let folder = resolution.fileID.kind == .directory
                let info = (existing ?? nil) ?? FinderInfo.alias(toFolder: folder).encoded
                attributes = [ExtendedAttribute(name: finderInfoAttribute, value: info)]
            case .bookmarkData:
                out = try bookmark.record.encoded()
            }
        } catch {
            throw BookmarkError(.corruptData, error.description, formatError: error)
        }
        if source.wasBase64 { out = Array((Data(out).base64EncodedString() + "\n").utf8) }
        try Bookmark.publish(out, at: path, attributes: attributes, mustExist: true, syncsDirectory: syncingDirectory)
        return FileRefresh(resolution: resolution, rewritten: true, container: source.container)
    }

    /// Fresh data for the object a stale bookmark resolved to: made with the old creation
    /// options, every key of the old data that the fresh data lacks kept (unknown keys, stored
    /// resource values) except the old signature, a legacy alias record kept in it pointed at the
    /// object as it is now (its encoded bytes returned too), and signed with `signingKey` when given.
    static func refreshed(
        _ old: Bookmark, resolution: Resolution, signingKey: SigningKey?, volumes: MountedVolumes?
    ) throws(BookmarkError) -> (bookmark: Bookmark, alias: [UInt8]?) {
        var fresh = try Bookmark.create(for: resolution.path, options: old.creationOptions, volumes: volumes).record
        if let toc = old.record.document.targetTOC {
            for entry in toc.entries where fresh[entry.key] == nil && entry.key != SignedBookmark.signatureKey {
                fresh[entry.key] = entry.value
            }
        }
        // A legacy alias record kept in the data (Apple's aliasData: the file's own record when
        // it is one) now names the new place too, not the old.
        let alias = try? old.record.embeddedAliasRecord()?.retargeted(to: aliasTarget(resolution, fresh)).encoded()
        if let alias { fresh.aliasData = alias }
        var bookmark = Bookmark(record: fresh)
        bookmark.record[SignedBookmark.signatureKey] = nil
        if let signingKey { bookmark = try signingKey.sign(bookmark) }
        return (bookmark, alias)
    }

    /// Where a refreshed alias record's target is: the resolution's path and volume, the fresh
    /// record's parent ID, creation date and volume name.
    static func aliasTarget(_ resolution: Resolution, _ fresh: BookmarkRecord) -> AliasRecord.Target {
        let ids = fresh.fileIDs ?? []
        let parent = ids.count >= 2 ? ids[ids.count - 2].map { UInt64(bitPattern: $0) } : nil
        return AliasRecord.Target(
            path: PathBytes(resolution.path).bytes, mountPoint: resolution.volume.mountPoint,
            fileID: resolution.fileID.inode, parentID: parent, isFolder: resolution.fileID.kind == .directory,
            creationDate: fresh.creationDate, volumeName: fresh.volume.name?.string)
    }

    /// Why a file with bytes after its bookmark data is not one bookmark file.
    static func trailingMessage(_ source: BookmarkSource) -> String {
        if let count = source.storedBookmarkCount {
            return "the file holds \(count) bookmarks stored back to back (a library file, which Bookmark.refreshAll(storedIn:) refreshes), not one"
        }
        return "\(source.trailingByteCount) bytes follow the bookmark data; they are not bookmark data"
    }
}
