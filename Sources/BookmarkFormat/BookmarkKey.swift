// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: TOC keys (numeric and string).

/// A key in a table of contents: a numeric key (bit 31 clear) or a string key (bit 31 set,
/// the low 31 bits being the offset of a string item holding the key's name).
///
/// Keys order numeric-before-string, numeric keys by value and string keys by bytes: the order
/// the encoder writes them in, which keeps each TOC sorted by its raw key word as Apple does.
public enum BookmarkKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A numeric key such as `0x1004` (pathComponents).
    case numeric(UInt32)
    /// A string key such as `NSURLVolumeURLKey` or our `org.swift-bookmarks.linux`.
    case string(ByteString)

    /// Orders numeric keys first (by value), then string keys (by bytes).
    public static func < (l: BookmarkKey, r: BookmarkKey) -> Bool {
        switch (l, r) {
        case (.numeric(let a), .numeric(let b)): return a < b
        case (.numeric, .string): return true
        case (.string, .numeric): return false
        case (.string(let a), .string(let b)): return a < b
        }
    }

    /// `0x1004` for numeric keys, the escaped name for string keys.
    public var description: String {
        switch self {
        case .numeric(let v): return "0x" + String(v, radix: 16, uppercase: true)
        case .string(let s): return s.escaped
        }
    }

    /// Apple's debug name for a known numeric key (from `NSURLBookmarkDetailedDescription`),
    /// our name for one of our string keys (`linux` for `org.swift-bookmarks.linux`,
    /// `linux.generation` for `org.swift-bookmarks.linux.generation`), else `nil`.
    public var name: String? {
        switch self {
        case .numeric(let v): return BookmarkKey.appleNames[v]
        case .string(let s):
            guard let text = s.string else { return nil }
            if text == LinuxKeys.compactName { return "linux" }
            guard text.hasPrefix(LinuxKeys.prefix) else { return nil }
            return "linux." + text.dropFirst(LinuxKeys.prefix.count)
        }
    }
}

// MARK: - Standard keys

extension BookmarkKey {
    /// `0x1003` urlString.
    public static let urlString = BookmarkKey.numeric(0x1003)
    /// `0x1004` pathComponents: path components from "/".
    public static let pathComponents = BookmarkKey.numeric(0x1004)
    /// `0x1005` fileIDs: one file ID (or null) per path component.
    public static let fileIDs = BookmarkKey.numeric(0x1005)
    /// `0x1006` pathComponentProps.
    public static let pathComponentProps = BookmarkKey.numeric(0x1006)
    /// `0x1008` tagStyle.
    public static let tagStyle = BookmarkKey.numeric(0x1008)
    /// `0x1010` resourceProps: 24 bytes (flags, valid mask, third word).
    public static let resourceProps = BookmarkKey.numeric(0x1010)
    /// `0x1020` fileName.
    public static let fileName = BookmarkKey.numeric(0x1020)
    /// `0x1030` fileID.
    public static let fileID = BookmarkKey.numeric(0x1030)
    /// `0x1040` creationDate of the target.
    public static let creationDate = BookmarkKey.numeric(0x1040)
    /// `0x1041` accessDate.
    public static let accessDate = BookmarkKey.numeric(0x1041)
    /// `0x1042` modificationDate.
    public static let modificationDate = BookmarkKey.numeric(0x1042)
    /// `0x1043` attrModificationDate.
    public static let attrModificationDate = BookmarkKey.numeric(0x1043)
    /// `0x1051` relativeDirsUpMinusOne.
    public static let relativeDirsUpMinusOne = BookmarkKey.numeric(0x1051)
    /// `0x1053` relativeDirsDownMinusOne.
    public static let relativeDirsDownMinusOne = BookmarkKey.numeric(0x1053)
    /// `0x1054` relativeDirsUp.
    public static let relativeDirsUp = BookmarkKey.numeric(0x1054)
    /// `0x1055` relativeDirsDown.
    public static let relativeDirsDown = BookmarkKey.numeric(0x1055)
    /// `0x1056` createdWithRelativeURL.
    public static let createdWithRelativeURL = BookmarkKey.numeric(0x1056)
    /// `0x1101` fragmentString.
    public static let fragmentString = BookmarkKey.numeric(0x1101)
    /// `0x1102` queryString.
    public static let queryString = BookmarkKey.numeric(0x1102)
    /// `0x2000` volInfoDepths: the TOC-id path from the root.
    public static let volInfoDepths = BookmarkKey.numeric(0x2000)
    /// `0x2002` volPath: the mount point, a string.
    public static let volPath = BookmarkKey.numeric(0x2002)
    /// `0x2004` volPathComponents.
    public static let volPathComponents = BookmarkKey.numeric(0x2004)
    /// `0x2005` volURL.
    public static let volURL = BookmarkKey.numeric(0x2005)
    /// `0x2010` volName.
    public static let volName = BookmarkKey.numeric(0x2010)
    /// `0x2011` volUUID: an upper-case UUID string.
    public static let volUUID = BookmarkKey.numeric(0x2011)
    /// `0x2012` volCapacity, SInt64.
    public static let volCapacity = BookmarkKey.numeric(0x2012)
    /// `0x2013` volCreationDate.
    public static let volCreationDate = BookmarkKey.numeric(0x2013)
    /// `0x2020` volProps: 24 bytes (flags, valid mask, third word).
    public static let volProps = BookmarkKey.numeric(0x2020)
    /// `0x2030` volWasBoot.
    public static let volWasBoot = BookmarkKey.numeric(0x2030)
    /// `0x2032` volIDiskUserName.
    public static let volIDiskUserName = BookmarkKey.numeric(0x2032)
    /// `0x2040` diskImageDepth: TOC id of a nested disk-image bookmark.
    public static let diskImageDepth = BookmarkKey.numeric(0x2040)
    /// `0x2050` volMountURL (`smb://…`).
    public static let volMountURL = BookmarkKey.numeric(0x2050)
    /// `0x2060` volAutomountPath.
    public static let volAutomountPath = BookmarkKey.numeric(0x2060)
    /// `0x2070` bookmarkFileProviderString.
    public static let bookmarkFileProviderString = BookmarkKey.numeric(0x2070)
    /// `0xC001` volHomeDirRelativePathComponentCount.
    public static let volHomeDirRelativePathComponentCount = BookmarkKey.numeric(0xC001)
    /// `0xC011` userName.
    public static let userName = BookmarkKey.numeric(0xC011)
    /// `0xC012` userUID.
    public static let userUID = BookmarkKey.numeric(0xC012)
    /// `0xD001` wasFileIDFormat.
    public static let wasFileIDFormat = BookmarkKey.numeric(0xD001)
    /// `0xD010` creationOptions.
    public static let creationOptions = BookmarkKey.numeric(0xD010)
    /// `0xE002` hasBaseURL (Apple spells it "haseBaseURL").
    public static let hasBaseURL = BookmarkKey.numeric(0xE002)
    /// `0xE003` baseURLComponentCount.
    public static let baseURLComponentCount = BookmarkKey.numeric(0xE003)
    /// `0xF016` displayNamesDict.
    public static let displayNamesDict = BookmarkKey.numeric(0xF016)
    /// `0xF017` displayName.
    public static let displayName = BookmarkKey.numeric(0xF017)
    /// `0xF020` effectiveIconData.
    public static let effectiveIconData = BookmarkKey.numeric(0xF020)
    /// `0xF021` effectiveFlattenedIconRef.
    public static let effectiveFlattenedIconRef = BookmarkKey.numeric(0xF021)
    /// `0xF022` typeBindingData.
    public static let typeBindingData = BookmarkKey.numeric(0xF022)
    /// `0xF030` bookmarkCreationTime.
    public static let bookmarkCreationTime = BookmarkKey.numeric(0xF030)
    /// `0xF080` sandboxRWExtension.
    public static let sandboxRWExtension = BookmarkKey.numeric(0xF080)
    /// `0xF081` sandboxROExtension.
    public static let sandboxROExtension = BookmarkKey.numeric(0xF081)
    /// `0xF082` securityScopeCookie.
    public static let securityScopeCookie = BookmarkKey.numeric(0xF082)
    /// `0xF083` teamIdentifier.
    public static let teamIdentifier = BookmarkKey.numeric(0xF083)
    /// `0xFE00` aliasData: an embedded legacy `alis` record.
    public static let aliasData = BookmarkKey.numeric(0xFE00)

    /// Apple's debug names of the known numeric keys.
    static let appleNames: [UInt32: String] = [
        0x1003: "urlString", 0x1004: "pathComponents", 0x1005: "fileIDs",
        0x1006: "pathComponentProps", 0x1008: "tagStyle", 0x1010: "resourceProps",
        0x1020: "fileName", 0x1030: "fileID", 0x1040: "creationDate", 0x1041: "accessDate",
        0x1042: "modificationDate", 0x1043: "attrModificationDate",
        0x1051: "relativeDirsUpMinusOne", 0x1053: "relativeDirsDownMinusOne",
        0x1054: "relativeDirsUp", 0x1055: "relativeDirsDown", 0x1056: "createdWithRelativeURL",
        0x1101: "fragmentString", 0x1102: "queryString",
        0x2000: "volInfoDepths", 0x2002: "volPath", 0x2004: "volPathComponents",
        0x2005: "volURL", 0x2010: "volName", 0x2011: "volUUID", 0x2012: "volCapacity",
        0x2013: "volCreationDate", 0x2020: "volProps", 0x2030: "volWasBoot",
        0x2032: "volIDiskUserName", 0x2040: "diskImageDepth", 0x2050: "volMountURL",
        0x2060: "volAutomountPath", 0x2070: "bookmarkFileProviderString",
        0xC001: "volHomeDirRelativePathComponentCount", 0xC011: "userName", 0xC012: "userUID",
        0xD001: "wasFileIDFormat", 0xD010: "creationOptions",
        0xE002: "haseBaseURL", 0xE003: "baseURLComponentCount",
        0xF016: "displayNamesDict", 0xF017: "displayName", 0xF020: "effectiveIconData",
        0xF021: "effectiveFlattenedIconRef", 0xF022: "typeBindingData",
        0xF030: "bookmarkCreationTime", 0xF080: "sandboxRWExtension",
        0xF081: "sandboxROExtension", 0xF082: "securityScopeCookie", 0xF083: "teamIdentifier",
        0xFE00: "aliasData",
    ]
}
