// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat

/// What a bookmark recorded, read without touching the file system (Apple's
/// `resourceValues(forKeys:fromBookmarkData:)`, plus everything Apple keeps hidden).
public struct StoredValues: Sendable, Hashable, Encodable {
    /// The last known path (escaped where not UTF-8).
    public var path: String?
    /// The last known path as raw bytes.
    public var pathBytes: [UInt8]?
    /// The object's name.
    public var name: String?
    /// The recorded inode number.
    public var fileID: Int64?
    /// The recorded creation (birth) date, ISO 8601.
    public var creationDate: String?
    /// Whether it was a directory.
    public var isDirectory: Bool
    /// The volume's name.
    public var volumeName: String?
    /// The volume's UUID.
    public var volumeUUID: String?
    /// The volume's mount point at creation.
    public var volumePath: String?
    /// The volume's `file://` URL at creation.
    public var volumeURL: String?
    /// The volume's capacity in bytes.
    public var volumeCapacity: Int64?
    /// The creation options' raw value.
    public var creationOptions: UInt32
    /// Resource values stored under string keys (`NSURLFileSizeKey`, …), rendered as text.
    public var resourceValues: [String: String]

    enum CodingKeys: String, CodingKey {
        case path, name, fileID, creationDate, isDirectory, volumeName, volumeUUID, volumePath, volumeURL,
            volumeCapacity, creationOptions, resourceValues
    }
}

extension Bookmark {
    /// The stored values, offline.
    public var storedValues: StoredValues {
        let volume = record.volume
        var resources: [String: String] = [:]
        for (key, item) in record.stringKeyedValues {
            guard let name = key.string, !name.hasPrefix("org.swift-bookmarks.") else { continue }
            resources[name] = render(item)
        }
        return StoredValues(
            path: record.pathBytes?.escaped, pathBytes: record.pathBytes?.bytes, name: record.fileName?.escaped,
            fileID: record.fileID, creationDate: record.creationDate?.description,
            isDirectory: record.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) ?? false,
            volumeName: volume.name?.escaped, volumeUUID: volume.uuid, volumePath: volume.path?.escaped,
            volumeURL: volume.url?.escaped, volumeCapacity: volume.capacity, creationOptions: record.creationOptions ?? 0,
            resourceValues: resources)
    }

    /// The stored resource value for `key`, if the bookmark has it.
    public func storedValue(for key: ResourceKey) -> BookmarkItem? { record[key.bookmarkKey] }
}

private func render(_ item: BookmarkItem) -> String {
    if let text = item.byteString { return text.escaped }
    if let number = item.integerValue { return String(number) }
    if let flag = item.boolValue { return String(flag) }
    if let date = item.dateValue { return date.description }
    if let data = item.dataValue { return data.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    return item.typeName
}
