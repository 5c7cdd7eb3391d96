// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles

    extension FileWrapper {
        /// The attributes, as `FileManager.attributesOfItem(atPath:)` gives them (keys are
        /// `FileAttributeKey` raw values), read without following a symbolic link.
        ///
        /// Setting them marks the wrapper to be written at the next save (never linked): the
        /// permissions (minus the umask) and the modification date are written; owner and group are
        /// not, as on macOS. Apple raises when the new value lacks the type or the permissions; here
        /// the missing ones keep their current values.
        public var fileAttributes: [String: Any] {
            get { locked { storedAttributes } }
            set {
                locked {
                    var merged = newValue
                    for key in [FileAttributeKey.type.rawValue, FileAttributeKey.posixPermissions.rawValue]
                    where merged[key] == nil {
                        merged[key] = storedAttributes[key]
                    }
                    storedAttributes = merged
                    attributesEdited = true
                }
            }
        }

        /// A new wrapper's attributes, as Apple sets them: the type, permissions 0o777 for a
        /// directory and 0o666 otherwise (the umask applies at write), and for a regular file the
        /// modification date of its creation.
        static func defaultAttributes(_ kind: Kind) -> [String: Any] {
            var attributes: [String: Any] = [:]
            switch kind {
            case .regular:
                attributes[FileAttributeKey.type.rawValue] = FileAttributeType.typeRegular
                attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: 0o666)
                attributes[FileAttributeKey.modificationDate.rawValue] = Date()
            case .directory:
                attributes[FileAttributeKey.type.rawValue] = FileAttributeType.typeDirectory
                attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: 0o777)
            case .symlink:
                attributes[FileAttributeKey.type.rawValue] = FileAttributeType.typeSymbolicLink
                attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: 0o666)
            }
            return attributes
        }

        /// The attributes of an object, as Foundation's `attributesOfItem` names them.
        static func attributes(of status: FileStatus) -> [String: Any] {
            var attributes: [String: Any] = [:]
            let type: FileAttributeType
            switch status.kind {
            case .regular: type = .typeRegular
            case .directory: type = .typeDirectory
            case .symlink: type = .typeSymbolicLink
            case .characterDevice: type = .typeCharacterSpecial
            case .blockDevice: type = .typeBlockSpecial
            case .socket: type = .typeSocket
            default: type = .typeUnknown
            }
            attributes[FileAttributeKey.type.rawValue] = type
            attributes[FileAttributeKey.size.rawValue] = NSNumber(value: status.size)
            attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: Int(status.permissions))
            attributes[FileAttributeKey.modificationDate.rawValue] = status.modificationTime.date
            if let birth = status.birthTime {
                attributes[FileAttributeKey.creationDate.rawValue] = birth.date
            }
            attributes[FileAttributeKey.systemFileNumber.rawValue] = NSNumber(value: status.inode)
            attributes[FileAttributeKey.referenceCount.rawValue] = NSNumber(value: status.linkCount)
            attributes[FileAttributeKey.ownerAccountID.rawValue] = NSNumber(value: status.uid)
            attributes[FileAttributeKey.groupOwnerAccountID.rawValue] = NSNumber(value: status.gid)
            attributes[FileAttributeKey.systemNumber.rawValue] = NSNumber(
                value: UInt64(status.device.major) << 32 | UInt64(status.device.minor))
            return attributes
        }

        /// The permission bits to write: the attribute (default by kind) minus the umask.
        func permissionsToWrite(umask: UInt32) -> UInt32 {
            let value = storedAttributes[FileAttributeKey.posixPermissions.rawValue]
            let requested = (value as? NSNumber)?.uint32Value ?? (value as? Int).map(UInt32.init) ?? (kind == .directory ? 0o777 : 0o666)
            return requested & 0o7777 & ~umask
        }

        /// The modification time to write, when the attributes hold one.
        var modificationTimeToWrite: Timestamp? {
            guard let date = storedAttributes[FileAttributeKey.modificationDate.rawValue] as? Date else { return nil }
            let interval = date.timeIntervalSince1970
            let seconds = interval.rounded(.down)
            return Timestamp(seconds: Int64(seconds), nanoseconds: UInt32(min(999_999_999, max(0, (interval - seconds) * 1e9))))
        }
    }

    extension Timestamp {
        var date: Date { Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1e9) }
    }

    extension CocoaError {
        /// A failed read as Apple reports it, with the system call's error underneath (also
        /// BookmarkFoundation's, for a URL it cannot reach).
        package static func reading(_ error: FileSystemError, url: URL) -> CocoaError {
            let code: CocoaError.Code
            switch error.errno {
            case .noSuchFileOrDirectory: code = .fileReadNoSuchFile
            case .permissionDenied, .notPermitted: code = .fileReadNoPermission
            default: code = .fileReadUnknown
            }
            return CocoaError(code, userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }

        /// A failed write as Apple reports it, with the system call's error underneath (also the
        /// document controller's, for its lock and folder).
        package static func writing(_ error: FileSystemError, url: URL) -> CocoaError {
            let code: CocoaError.Code
            switch error.errno {
            case .fileExists: code = .fileWriteFileExists
            case .permissionDenied, .notPermitted: code = .fileWriteNoPermission
            case .noSpace: code = .fileWriteOutOfSpace
            case .readOnlyFileSystem: code = .fileWriteVolumeReadOnly
            case .noSuchFileOrDirectory: code = .fileNoSuchFile
            default: code = .fileWriteUnknown
            }
            return CocoaError(code, userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
    }
#endif
