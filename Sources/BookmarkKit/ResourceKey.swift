// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat

/// A resource value a bookmark can carry, named as Apple names it in bookmark data (string keys).
public struct ResourceKey: RawRepresentable, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's key string, such as `NSURLFileSizeKey`.
    public var rawValue: String
    /// Wraps a key string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `NSURLNameKey`: the last path component.
    public static let name = ResourceKey(rawValue: "NSURLNameKey")
    /// `NSURLFileSizeKey`: the size in bytes (regular files).
    public static let fileSize = ResourceKey(rawValue: "NSURLFileSizeKey")
    /// `NSURLContentModificationDateKey`.
    public static let contentModificationDate = ResourceKey(rawValue: "NSURLContentModificationDateKey")
    /// `NSURLCreationDateKey`: the birth time (not ctime).
    public static let creationDate = ResourceKey(rawValue: "NSURLCreationDateKey")
    /// `NSURLIsDirectoryKey`.
    public static let isDirectory = ResourceKey(rawValue: "NSURLIsDirectoryKey")
    /// `NSURLIsRegularFileKey`.
    public static let isRegularFile = ResourceKey(rawValue: "NSURLIsRegularFileKey")
    /// `NSURLIsHiddenKey`: a dot file.
    public static let isHidden = ResourceKey(rawValue: "NSURLIsHiddenKey")
    /// `NSURLPathKey`: the path at creation.
    public static let path = ResourceKey(rawValue: "NSURLPathKey")
    /// `NSURLVolumeNameKey`.
    public static let volumeName = ResourceKey(rawValue: "NSURLVolumeNameKey")
    /// `NSURLVolumeUUIDStringKey`.
    public static let volumeUUIDString = ResourceKey(rawValue: "NSURLVolumeUUIDStringKey")

    /// The keys this library can fill.
    public static let allCases: [ResourceKey] = [
        .name, .fileSize, .contentModificationDate, .creationDate, .isDirectory, .isRegularFile, .isHidden, .path,
        .volumeName, .volumeUUIDString,
    ]

    /// The bookmark key it is stored under.
    var bookmarkKey: BookmarkKey { .string(ByteString(rawValue)) }
}
