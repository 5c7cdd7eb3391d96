// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles

    /// Our serialisation of a wrapper tree (`FileWrapper.serializedRepresentation`), documented in
    /// Docs/DOCUMENTS.md, "Serialised form". Apple's own form (`rtfd` and a private NeXT-era
    /// dictionary stream) is undocumented; this one is versioned, length-prefixed, little-endian, and
    /// its decoder checks every length and name before it uses it.
    enum WrapperArchive {
        static let magic: [UInt8] = Array("SBFW".utf8)
        static let version: UInt16 = 1

        /// What the decoder accepts at most.
        enum Limit {
            static let depth = 64
            static let children = 100_000
            static let nodes = 1_000_000
            static let nameBytes = 255
            static let linkBytes = 4095
        }

        enum Kind: UInt8 { case regular = 1, directory = 2, symlink = 3 }

        /// Why bytes are not a serialised wrapper.
        enum Failure: Error, Equatable {
            case badMagic, unsupportedVersion(UInt16), truncated, badKind(UInt8), badName, badLink
            case tooDeep, tooMany, trailingBytes
        }

        // MARK: Encoding

        static func encode(_ root: FileWrapper) -> Data? {
            var out = magic
            append(&out, version)
            append(&out, UInt16(0))
            guard encodeNode(root, into: &out) else { return nil }
            return Data(out)
        }

        private static func encodeNode(_ node: FileWrapper, into out: inout [UInt8]) -> Bool {
            let kind: Kind
            switch node.kind {
            case .regular: kind = .regular
            case .directory: kind = .directory
            case .symlink: kind = .symlink
            }
            out.append(kind.rawValue)
            append(&out, UInt16(node.permissionsToWrite(umask: 0) & 0o7777))
            if let time = node.modificationTimeToWrite {
                out.append(1)
                append(&out, UInt64(bitPattern: time.seconds))
                append(&out, time.nanoseconds)
            } else {
                out.append(0)
            }
            let preferred = Array((node.storedPreferredFilename ?? "").utf8.prefix(Limit.nameBytes))
            append(&out, UInt16(preferred.count))
            out += preferred
            switch node.kind {
            case .regular:
                guard let data = node.loadedContents() else { return false }
                append(&out, UInt64(data.count))
                out += data
            case .symlink:
                guard let target = node.loadedLinkTarget() else { return false }
                append(&out, UInt16(target.count))
                out += target
            case .directory:
                guard let table = node.loadedChildren() else { return false }
                append(&out, UInt32(table.dictionary.count))
                for key in table.dictionary.keys.sorted() {
                    guard let child = table.dictionary[key] else { continue }
                    let name = Array(key.utf8)
                    append(&out, UInt16(name.count))
                    out += name
                    guard child.locked({ encodeNode(child, into: &out) }) else { return false }
                }
            }
            return true
        }

        private static func append<T: FixedWidthInteger>(_ out: inout [UInt8], _ value: T) {
            withUnsafeBytes(of: value.littleEndian) { out += $0 }
        }

        // MARK: Decoding

        static func decode(_ data: Data) throws(Failure) -> FileWrapper {
            var reader = Reader(bytes: [UInt8](data))
            guard try reader.bytes(4) == magic else { throw .badMagic }
            let version: UInt16 = try reader.integer()
            guard version == Self.version else { throw .unsupportedVersion(version) }
            let _: UInt16 = try reader.integer()
            var nodes = 0
            let root = try decodeNode(&reader, depth: 0, nodes: &nodes)
            guard reader.isAtEnd else { throw .trailingBytes }
            return root
        }

        private static func decodeNode(_ reader: inout Reader, depth: Int, nodes: inout Int) throws(Failure) -> FileWrapper {
            guard depth <= Limit.depth else { throw .tooDeep }
            nodes += 1
            guard nodes <= Limit.nodes else { throw .tooMany }
            let rawKind: UInt8 = try reader.integer()
            guard let kind = Kind(rawValue: rawKind) else { throw .badKind(rawKind) }
            let mode: UInt16 = try reader.integer()
            let hasTime: UInt8 = try reader.integer()
            var time: Timestamp?
            if hasTime == 1 {
                let seconds: UInt64 = try reader.integer()
                let nanoseconds: UInt32 = try reader.integer()
                guard nanoseconds < 1_000_000_000 else { throw .truncated }
                time = Timestamp(seconds: Int64(bitPattern: seconds), nanoseconds: nanoseconds)
            } else if hasTime != 0 {
                throw .truncated
            }
            let preferredLength: UInt16 = try reader.integer()
            let preferredBytes = try reader.bytes(Int(preferredLength))
            let preferred = preferredBytes.isEmpty ? nil : try validName(preferredBytes)

            let node: FileWrapper
            switch kind {
            case .regular:
                let length: UInt64 = try reader.integer()
                guard length <= UInt64(reader.remaining) else { throw .truncated }
                node = FileWrapper(regularFileWithContents: Data(try reader.bytes(Int(length))))
            case .symlink:
                let length: UInt16 = try reader.integer()
                let target = try reader.bytes(Int(length))
                guard !target.isEmpty, target.count <= Limit.linkBytes, !target.contains(0) else { throw .badLink }
                node = FileWrapper(kind: .symlink, attributes: FileWrapper.defaultAttributes(.symlink))
                node.storedLinkTarget = target
            case .directory:
                let count: UInt32 = try reader.integer()
                guard count <= UInt32(Limit.children) else { throw .tooMany }
                node = FileWrapper(kind: .directory, attributes: FileWrapper.defaultAttributes(.directory))
                var table = ChildTable()
                for _ in 0..<count {
                    let nameLength: UInt16 = try reader.integer()
                    let key = try validName(try reader.bytes(Int(nameLength)))
                    guard !table.contains(key) else { throw .badName }
                    let child = try decodeNode(&reader, depth: depth + 1, nodes: &nodes)
                    if child.storedPreferredFilename == nil { child.storedPreferredFilename = key }
                    child.parents.append(WeakWrapper(wrapper: node))
                    table.insert(child, as: key)
                }
                node.storedChildren = table
            }
            node.storedPreferredFilename = preferred
            node.storedAttributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: mode & 0o7777)
            node.storedAttributes[FileAttributeKey.modificationDate.rawValue] = time?.date
            return node
        }

        /// A name must be one path component: not empty, `.` or `..`, no `/` or NUL, at most 255
        /// bytes, valid UTF-8 (keys are strings).
        private static func validName(_ bytes: [UInt8]) throws(Failure) -> String {
            guard !bytes.isEmpty, bytes.count <= Limit.nameBytes, bytes != [0x2E], bytes != [0x2E, 0x2E],
                !bytes.contains(0x2F), !bytes.contains(0), let name = String(validating: bytes, as: UTF8.self)
            else { throw .badName }
            return name
        }

        /// Reads integers and byte runs, checking every length against what is left.
        struct Reader {
            let bytes: [UInt8]
            var offset = 0

            var remaining: Int { bytes.count - offset }
            var isAtEnd: Bool { offset == bytes.count }

            mutating func bytes(_ count: Int) throws(Failure) -> [UInt8] {
                guard count >= 0, count <= remaining else { throw .truncated }
                defer { offset += count }
                return Array(bytes[offset..<offset + count])
            }

            mutating func integer<T: FixedWidthInteger>() throws(Failure) -> T {
                let raw = try bytes(MemoryLayout<T>.size)
                var value: T = 0
                for (index, byte) in raw.enumerated() { value |= T(byte) << (8 * index) }
                return value
            }
        }
    }

    extension FileWrapper {
        /// The whole tree in this library's serialised form (Docs/DOCUMENTS.md, "Serialised form"):
        /// for the pasteboard, an archive, or a network. `nil` when contents that were not read yet
        /// cannot be read. Apple's own form is private and not produced.
        public var serializedRepresentation: Data? {
            locked { WrapperArchive.encode(self) }
        }

        /// Takes over a decoded node's contents (an initialiser cannot return another object).
        func adopt(_ other: FileWrapper) {
            kind = other.kind
            storedAttributes = other.storedAttributes
            storedContents = other.storedContents
            storedLinkTarget = other.storedLinkTarget
            storedPreferredFilename = other.storedPreferredFilename
            if let table = other.storedChildren {
                storedChildren = table
                for child in table.dictionary.values {
                    child.parents = [WeakWrapper(wrapper: self)]
                }
            }
        }
    }
#endif
