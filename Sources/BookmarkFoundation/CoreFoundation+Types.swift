// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    // Core Foundation's names, for macOS code that calls the CFURL bookmark functions.
    //
    // On macOS, `import Foundation` also brings Core Foundation, and its types are toll-free
    // bridged: code writes `url as CFURL`, `cfData as Data`, `error.takeRetainedValue() as Error`.
    // Foundation on Linux exports no Core Foundation name at all (checked on Swift 6.3: `CFData`,
    // `CFURL`, `kCFAllocatorDefault`, `DarwinBoolean` are "not in scope" after `import Foundation`),
    // and the toolchain's separate `CoreFoundation` module has no bridging: `url as CFURL` does not
    // compile with its types, and its bookmark functions are declared but not implemented (a call
    // fails to link). So this module names each Core Foundation type the macOS code needs after the
    // Foundation class it is bridged to on macOS: the same spellings, and the same `as` casts,
    // compile and behave. A file that also writes `import CoreFoundation` sees two `CFURL`s and must
    // drop that import (Docs: "Porting from macOS").

    /// Core Foundation's `CFURL`: on Linux, Foundation's `NSURL` (toll-free bridged on macOS).
    public typealias CFURL = NSURL
    /// Core Foundation's `CFData`: on Linux, Foundation's `NSData`.
    public typealias CFData = NSData
    /// Core Foundation's `CFError`: on Linux, Foundation's `NSError`.
    public typealias CFError = NSError
    /// Core Foundation's `CFArray`: on Linux, Foundation's `NSArray`.
    public typealias CFArray = NSArray
    /// Core Foundation's `CFDictionary`: on Linux, Foundation's `NSDictionary`.
    public typealias CFDictionary = NSDictionary
    /// Core Foundation's `CFString`: on Linux, Foundation's `NSString`.
    public typealias CFString = NSString
    /// Core Foundation's `CFTypeRef`: any object, as on macOS.
    public typealias CFTypeRef = AnyObject
    /// Core Foundation's `CFIndex`.
    public typealias CFIndex = Int
    /// Core Foundation's `CFOptionFlags`.
    public typealias CFOptionFlags = UInt
    /// Core Foundation's `CFErrorDomain`.
    public typealias CFErrorDomain = CFString

    /// Core Foundation's `CFAllocator`. Only the default allocator exists: every function here
    /// takes `nil` or ``kCFAllocatorDefault`` and allocates as Foundation does.
    public final class CFAllocator: Sendable {
        private init() {}
    }

    /// Core Foundation's default allocator, `NULL` as in C (`kCFAllocatorDefault` is `NULL` there too).
    public let kCFAllocatorDefault: CFAllocator! = nil

    /// Core Foundation's error domain for Cocoa errors: the domain of every `CFError` these
    /// functions return (`NSCocoaErrorDomain`).
    nonisolated(unsafe) public let kCFErrorDomainCocoa: CFErrorDomain! = NSString(string: NSCocoaErrorDomain)

    /// Swift's `DarwinBoolean`, the type of C's `Boolean` behind a pointer (as in
    /// `CFURLCreateByResolvingBookmarkData`'s `isStale`): one byte, `true` when not zero.
    @frozen
    public struct DarwinBoolean: ExpressibleByBooleanLiteral, Sendable, Hashable, CustomStringConvertible {
        var value: UInt8

        /// Creates a value from a `Bool`.
        public init(_ value: Bool) { self.value = value ? 1 : 0 }

        /// Creates a value from a Boolean literal.
        public init(booleanLiteral value: Bool) { self.init(value) }

        /// Whether the value is `true` (not zero).
        public var boolValue: Bool { value != 0 }

        /// `"true"` or `"false"`.
        public var description: String { boolValue.description }

        /// Equal when both are true or both are false.
        public static func == (lhs: DarwinBoolean, rhs: DarwinBoolean) -> Bool { lhs.boolValue == rhs.boolValue }

        /// Hashes the Boolean value.
        public func hash(into hasher: inout Hasher) { hasher.combine(boolValue) }
    }

    extension Bool {
        /// Converts a `DarwinBoolean`, as on macOS: `Bool(isStale)`.
        public init(_ value: DarwinBoolean) { self = value.boolValue }
    }

    /// Core Foundation's bookmark creation options, with the member names Swift gives them on
    /// macOS and Apple's bits (the same bits as `URL.BookmarkCreationOptions`).
    public struct CFURLBookmarkCreationOptions: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: CFOptionFlags
        /// Creates options from Apple's bit values.
        public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

        /// `kCFURLBookmarkCreationMinimalBookmarkMask`.
        public static let minimalBookmarkMask = CFURLBookmarkCreationOptions(rawValue: 1 << 9)
        /// `kCFURLBookmarkCreationSuitableForBookmarkFile`.
        public static let suitableForBookmarkFile = CFURLBookmarkCreationOptions(rawValue: 1 << 10)
        /// `kCFURLBookmarkCreationWithSecurityScope`: signs the data (see `SecurityScope`).
        public static let withSecurityScope = CFURLBookmarkCreationOptions(rawValue: 1 << 11)
        /// `kCFURLBookmarkCreationSecurityScopeAllowOnlyReadAccess`.
        public static let securityScopeAllowOnlyReadAccess = CFURLBookmarkCreationOptions(rawValue: 1 << 12)
        /// `kCFURLBookmarkCreationWithoutImplicitSecurityScope`.
        public static let withoutImplicitSecurityScope = CFURLBookmarkCreationOptions(rawValue: 1 << 29)
        /// `kCFURLBookmarkCreationPreferFileIDResolutionMask`, deprecated by Apple: no effect.
        @available(*, deprecated, message: "Apple: does nothing and has no effect on bookmark resolution")
        public static let preferFileIDResolutionMask = CFURLBookmarkCreationOptions(rawValue: 1 << 8)
    }

    /// Core Foundation's bookmark resolution options, with the member names Swift gives them on
    /// macOS and Apple's bits (the same bits as `URL.BookmarkResolutionOptions`).
    public struct CFURLBookmarkResolutionOptions: OptionSet, Sendable, Hashable {
        /// The bits.
        public let rawValue: CFOptionFlags
        /// Creates options from Apple's bit values.
        public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

        /// `kCFURLBookmarkResolutionWithoutUIMask`: no effect (resolution never interacts).
        public static let cfurlBookmarkResolutionWithoutUIMask = CFURLBookmarkResolutionOptions(rawValue: 1 << 8)
        /// `kCFURLBookmarkResolutionWithoutMountingMask`: no effect (resolution never mounts).
        public static let cfurlBookmarkResolutionWithoutMountingMask = CFURLBookmarkResolutionOptions(rawValue: 1 << 9)
        /// `kCFURLBookmarkResolutionWithSecurityScope`: verifies the signature (see `SecurityScope`).
        public static let cfurlBookmarkResolutionWithSecurityScope = CFURLBookmarkResolutionOptions(rawValue: 1 << 10)
        /// `kCFURLBookmarkResolutionWithoutImplicitStartAccessing`: no effect.
        public static let cfurlBookmarkResolutionWithoutImplicitStartAccessing = CFURLBookmarkResolutionOptions(
            rawValue: 1 << 15)
        /// `kCFBookmarkResolutionWithoutUIMask`, the older name.
        public static let cfBookmarkResolutionWithoutUIMask = CFURLBookmarkResolutionOptions(rawValue: 1 << 8)
        /// `kCFBookmarkResolutionWithoutMountingMask`, the older name.
        public static let cfBookmarkResolutionWithoutMountingMask = CFURLBookmarkResolutionOptions(rawValue: 1 << 9)
    }

    /// Core Foundation's `CFURLBookmarkFileCreationOptions`: unused, as on macOS.
    public typealias CFURLBookmarkFileCreationOptions = CFOptionFlags

    // The resource keys, as Core Foundation names them: the same strings as `URLResourceKey`'s
    // (`kCFURLNameKey` is `"NSURLNameKey"`, as on macOS). Immutable `NSString`s.

    /// `kCFURLNameKey`: `URLResourceKey.nameKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLNameKey: CFString = NSString(string: URLResourceKey.nameKey.rawValue)
    /// `kCFURLLocalizedNameKey`: `URLResourceKey.localizedNameKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLLocalizedNameKey: CFString = NSString(string: URLResourceKey.localizedNameKey.rawValue)
    /// `kCFURLPathKey`: `URLResourceKey.pathKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLPathKey: CFString = NSString(string: URLResourceKey.pathKey.rawValue)
    /// `kCFURLIsRegularFileKey`: `URLResourceKey.isRegularFileKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsRegularFileKey: CFString = NSString(string: URLResourceKey.isRegularFileKey.rawValue)
    /// `kCFURLIsDirectoryKey`: `URLResourceKey.isDirectoryKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsDirectoryKey: CFString = NSString(string: URLResourceKey.isDirectoryKey.rawValue)
    /// `kCFURLIsSymbolicLinkKey`: `URLResourceKey.isSymbolicLinkKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsSymbolicLinkKey: CFString = NSString(string: URLResourceKey.isSymbolicLinkKey.rawValue)
    /// `kCFURLIsVolumeKey`: `URLResourceKey.isVolumeKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsVolumeKey: CFString = NSString(string: URLResourceKey.isVolumeKey.rawValue)
    /// `kCFURLIsPackageKey`: `URLResourceKey.isPackageKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsPackageKey: CFString = NSString(string: URLResourceKey.isPackageKey.rawValue)
    /// `kCFURLIsHiddenKey`: `URLResourceKey.isHiddenKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsHiddenKey: CFString = NSString(string: URLResourceKey.isHiddenKey.rawValue)
    /// `kCFURLIsUserImmutableKey`: `URLResourceKey.isUserImmutableKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsUserImmutableKey: CFString = NSString(string: URLResourceKey.isUserImmutableKey.rawValue)
    /// `kCFURLIsSystemImmutableKey`: `URLResourceKey.isSystemImmutableKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLIsSystemImmutableKey: CFString = NSString(string: URLResourceKey.isSystemImmutableKey.rawValue)
    /// `kCFURLCreationDateKey`: `URLResourceKey.creationDateKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLCreationDateKey: CFString = NSString(string: URLResourceKey.creationDateKey.rawValue)
    /// `kCFURLContentModificationDateKey`: `URLResourceKey.contentModificationDateKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLContentModificationDateKey: CFString = NSString(string: URLResourceKey.contentModificationDateKey.rawValue)
    /// `kCFURLFileSizeKey`: `URLResourceKey.fileSizeKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLFileSizeKey: CFString = NSString(string: URLResourceKey.fileSizeKey.rawValue)
    /// `kCFURLFileResourceTypeKey`: `URLResourceKey.fileResourceTypeKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLFileResourceTypeKey: CFString = NSString(string: URLResourceKey.fileResourceTypeKey.rawValue)
    /// `kCFURLTypeIdentifierKey`: `URLResourceKey.typeIdentifierKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLTypeIdentifierKey: CFString = NSString(string: URLResourceKey.typeIdentifierKey.rawValue)
    /// `kCFURLLinkCountKey`: `URLResourceKey.linkCountKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLLinkCountKey: CFString = NSString(string: URLResourceKey.linkCountKey.rawValue)
    /// `kCFURLParentDirectoryURLKey`: `URLResourceKey.parentDirectoryURLKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLParentDirectoryURLKey: CFString = NSString(string: URLResourceKey.parentDirectoryURLKey.rawValue)
    /// `kCFURLVolumeNameKey`: `URLResourceKey.volumeNameKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLVolumeNameKey: CFString = NSString(string: URLResourceKey.volumeNameKey.rawValue)
    /// `kCFURLVolumeUUIDStringKey`: `URLResourceKey.volumeUUIDStringKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLVolumeUUIDStringKey: CFString = NSString(string: URLResourceKey.volumeUUIDStringKey.rawValue)
    /// `kCFURLVolumeURLKey`: `URLResourceKey.volumeURLKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLVolumeURLKey: CFString = NSString(string: URLResourceKey.volumeURLKey.rawValue)
    /// `kCFURLVolumeTotalCapacityKey`: `URLResourceKey.volumeTotalCapacityKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLVolumeTotalCapacityKey: CFString = NSString(string: URLResourceKey.volumeTotalCapacityKey.rawValue)
    /// `kCFURLVolumeCreationDateKey`: `URLResourceKey.volumeCreationDateKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLVolumeCreationDateKey: CFString = NSString(string: URLResourceKey.volumeCreationDateKey.rawValue)
    /// `kCFURLVolumeIsRootFileSystemKey`: `URLResourceKey.volumeIsRootFileSystemKey` as a `CFString`.
    nonisolated(unsafe) public let kCFURLVolumeIsRootFileSystemKey: CFString = NSString(string: URLResourceKey.volumeIsRootFileSystemKey.rawValue)
#endif
