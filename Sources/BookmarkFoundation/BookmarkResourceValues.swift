// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    /// Builds the `URLResourceValues` that `URL.resourceValues(forKeys:fromBookmarkData:)`
    /// returns.
    ///
    /// swift-corelibs-foundation has no public way to make a `URLResourceValues` with arbitrary
    /// values: only `name`, `creationDate`, `contentAccessDate`, `contentModificationDate`,
    /// `isHidden`, `isPackage`, `isUserImmutable`, `hasHiddenExtension`, `labelNumber`,
    /// `isExcludedFromBackup` and `quarantineProperties` have setters, and temporary resource values
    /// do not survive `URL`'s bridging to `NSURL`. Its storage is two stored properties,
    /// `_values: [URLResourceKey: Any]` then `_keys: Set<URLResourceKey>`, and every getter reads
    /// `_values`. ``canFillAllKeys`` checks that layout at run time (field names, types and order
    /// through `Mirror`, size and alignment, and a round trip of a value set through a public
    /// setter); only when it holds are the other values (path, sizes, flags, volume values) written
    /// into that storage. When it does not hold, only the settable properties are filled.
    package enum BookmarkResourceValues {
        /// The mirror of `URLResourceValues`' stored properties, in their order.
        private struct Storage {
            var values: [URLResourceKey: Any]
            var keys: Set<URLResourceKey>
        }

        /// Whether every key can be returned (the layout check passed), not only the settable ones.
        package static let canFillAllKeys: Bool = {
            guard MemoryLayout<URLResourceValues>.size == MemoryLayout<Storage>.size,
                MemoryLayout<URLResourceValues>.alignment == MemoryLayout<Storage>.alignment,
                MemoryLayout<URLResourceValues>.stride == MemoryLayout<Storage>.stride
            else { return false }
            var probe = URLResourceValues()
            probe.name = "probe"
            let fields = Array(Mirror(reflecting: probe).children)
            guard fields.count == 2,
                fields[0].label == "_values", type(of: fields[0].value) == [URLResourceKey: Any].self,
                fields[1].label == "_keys", type(of: fields[1].value) == Set<URLResourceKey>.self
            else { return false }
            let storage = unsafeBitCast(probe, to: Storage.self)
            guard storage.values.count == 1, storage.values[.nameKey] as? String == "probe",
                storage.keys == [.nameKey]
            else { return false }
            let back = unsafeBitCast(Storage(values: [.pathKey: "/probe"], keys: [.pathKey]), to: URLResourceValues.self)
            return back.path == "/probe" && back.allValues.count == 1
        }()

        /// Resource values holding `values`: all of them when ``canFillAllKeys``, else the settable ones.
        static func make(from values: [URLResourceKey: Any]) -> URLResourceValues {
            if canFillAllKeys {
                return unsafeBitCast(Storage(values: values, keys: Set(values.keys)), to: URLResourceValues.self)
            }
            return settableOnly(values)
        }

        /// Resource values with only the properties `URLResourceValues` lets callers set.
        static func settableOnly(_ values: [URLResourceKey: Any]) -> URLResourceValues {
            var result = URLResourceValues()
            for (key, value) in values {
                switch key {
                case .nameKey: result.name = value as? String
                case .creationDateKey: result.creationDate = value as? Date
                case .contentAccessDateKey: result.contentAccessDate = value as? Date
                case .contentModificationDateKey: result.contentModificationDate = value as? Date
                case .isHiddenKey: result.isHidden = (value as? NSNumber)?.boolValue
                case .isPackageKey: result.isPackage = (value as? NSNumber)?.boolValue
                case .isUserImmutableKey: result.isUserImmutable = (value as? NSNumber)?.boolValue
                case .hasHiddenExtensionKey: result.hasHiddenExtension = (value as? NSNumber)?.boolValue
                case .labelNumberKey: result.labelNumber = (value as? NSNumber)?.intValue
                case .isExcludedFromBackupKey: result.isExcludedFromBackup = (value as? NSNumber)?.boolValue
                default: break
                }
            }
            return result
        }
    }
#endif
