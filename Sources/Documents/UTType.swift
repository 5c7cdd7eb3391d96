// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    /// A content type, as Apple's `UTType` (UniformTypeIdentifiers) names one: an identifier,
    /// the types it conforms to, and its filename extensions.
    ///
    /// What documents declare is covered: the common system types (`.data`, `.package`,
    /// `.plainText`, `.json`, `.png`, …) with Apple's identifiers and conformances, types an
    /// application exports (``init(exportedAs:conformingTo:)``) or imports
    /// (``init(importedAs:conformingTo:)``) and types found by filename extension. Apple reads
    /// declared types' extensions from the app's Info.plist; on Linux, give them with
    /// ``init(exportedAs:conformingTo:filenameExtensions:)`` or
    /// ``init(importedAs:conformingTo:filenameExtensions:)``.
    public struct UTType: Hashable, Sendable, CustomStringConvertible {
        /// The reverse-DNS identifier (`public.plain-text`).
        public let identifier: String
        /// The filename extensions, the preferred one first.
        public let filenameExtensions: [String]
        /// The identifiers of the types this one conforms to directly.
        let parents: [String]

        /// The preferred filename extension, if the type has one.
        public var preferredFilenameExtension: String? { filenameExtensions.first }

        /// The identifier.
        public var description: String { identifier }

        init(_ identifier: String, _ parents: [String], _ extensions: [String] = []) {
            self.identifier = identifier
            self.parents = parents
            filenameExtensions = extensions
        }

        /// The system type with this identifier, or `nil` for one this registry does not know.
        public init?(_ identifier: String) {
            guard let known = UTType.system.first(where: { $0.identifier == identifier }) else { return nil }
            self = known
        }

        /// A type the application declares (exports), conforming to `parent` (default `.data`).
        public init(exportedAs identifier: String, conformingTo parent: UTType? = nil) {
            self.init(identifier, [parent?.identifier ?? UTType.data.identifier])
        }

        /// A type the application declares, with the filename extensions Apple would read from the
        /// app's Info.plist (a Linux addition).
        public init(exportedAs identifier: String, conformingTo parent: UTType? = nil, filenameExtensions: [String]) {
            self.init(identifier, [parent?.identifier ?? UTType.data.identifier], filenameExtensions.map { $0.lowercased() })
        }

        /// A type another application declares and this one uses (Apple's "imported" type, as
        /// Xcode's Document App template declares its `exampleText`), conforming to `parent`
        /// (default `.data`).
        ///
        /// Apple prefers the owner's declaration when the system has one: here, an identifier of a
        /// system type this registry knows gives that type (its conformances and extensions);
        /// any other is made as declared here. Apple reads an imported type's extensions from the
        /// app's Info.plist; on Linux, give them with
        /// ``init(importedAs:conformingTo:filenameExtensions:)``.
        public init(importedAs identifier: String, conformingTo parent: UTType? = nil) {
            self.init(importedAs: identifier, conformingTo: parent, filenameExtensions: [])
        }

        /// A type another application declares, with the filename extensions Apple would read from
        /// this app's Info.plist (a Linux addition); a known system type wins, as in
        /// ``init(importedAs:conformingTo:)``.
        public init(importedAs identifier: String, conformingTo parent: UTType? = nil, filenameExtensions: [String]) {
            if let known = UTType(identifier) {
                self = known
            } else {
                self.init(identifier, [parent?.identifier ?? UTType.data.identifier], filenameExtensions.map { $0.lowercased() })
            }
        }

        /// The system type whose filename extensions include `filenameExtension` (case-insensitive)
        /// and that conforms to `supertype`; `nil` when there is none.
        public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
            let wanted = filenameExtension.lowercased()
            guard let known = UTType.system.first(where: { $0.filenameExtensions.contains(wanted) && $0.conforms(to: supertype) })
            else { return nil }
            self = known
        }

        /// Whether this type is `other` or conforms to it, directly or through its supertypes.
        public func conforms(to other: UTType) -> Bool {
            if identifier == other.identifier { return true }
            var seen: Set<String> = [identifier]
            var pending = parents
            while let next = pending.popLast() {
                if next == other.identifier { return true }
                guard seen.insert(next).inserted, let type = UTType.system.first(where: { $0.identifier == next }) else { continue }
                pending += type.parents
            }
            return false
        }

        /// Every type this one conforms to, itself excluded.
        public var supertypes: Set<UTType> {
            Set(UTType.system.filter { $0.identifier != identifier && conforms(to: $0) })
        }

        /// Whether the type is declared by the system (this registry) rather than by the application.
        public var isDeclared: Bool { UTType.system.contains { $0.identifier == identifier } }

        /// Equality and hashing by identifier, as Apple's.
        public static func == (a: UTType, b: UTType) -> Bool { a.identifier == b.identifier }
        /// Hashes the identifier.
        public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    }

    extension UTType {
        /// `public.item`: the root of the physical hierarchy.
        public static let item = UTType("public.item", [])
        /// `public.content`: the root of the content hierarchy.
        public static let content = UTType("public.content", [])
        /// `public.data`: a byte stream.
        public static let data = UTType("public.data", ["public.item"])
        /// `public.directory`.
        public static let directory = UTType("public.directory", ["public.item"])
        /// `public.folder`: a directory a user sees as a folder.
        public static let folder = UTType("public.folder", ["public.directory"])
        /// `com.apple.package`: a directory a user sees as one file.
        public static let package = UTType("com.apple.package", ["public.directory"])
        /// `public.text`.
        public static let text = UTType("public.text", ["public.data", "public.content"])
        /// `public.plain-text`.
        public static let plainText = UTType("public.plain-text", ["public.text"], ["txt", "text"])
        /// `public.utf8-plain-text`.
        public static let utf8PlainText = UTType("public.utf8-plain-text", ["public.plain-text"])
        /// `public.json`.
        public static let json = UTType("public.json", ["public.text"], ["json"])
        /// `public.xml`.
        public static let xml = UTType("public.xml", ["public.text"], ["xml"])
        /// `public.html`.
        public static let html = UTType("public.html", ["public.text"], ["html", "htm"])
        /// `public.comma-separated-values-text`.
        public static let commaSeparatedText = UTType("public.comma-separated-values-text", ["public.text"], ["csv"])
        /// `public.rtf`.
        public static let rtf = UTType("public.rtf", ["public.text"], ["rtf"])
        /// `com.apple.rtfd`: a package of rich text and attachments.
        public static let rtfd = UTType("com.apple.rtfd", ["com.apple.package", "public.composite-content"], ["rtfd"])
        /// `public.composite-content`.
        public static let compositeContent = UTType("public.composite-content", ["public.content"])
        /// `public.image`.
        public static let image = UTType("public.image", ["public.data", "public.content"])
        /// `public.png`.
        public static let png = UTType("public.png", ["public.image"], ["png"])
        /// `public.jpeg`.
        public static let jpeg = UTType("public.jpeg", ["public.image"], ["jpeg", "jpg"])
        /// `com.adobe.pdf`.
        public static let pdf = UTType("com.adobe.pdf", ["public.data", "public.composite-content"], ["pdf"])
        /// `public.archive`.
        public static let archive = UTType("public.archive", ["public.data"])
        /// `public.zip-archive`.
        public static let zip = UTType("public.zip-archive", ["public.archive"], ["zip"])
        /// `com.apple.property-list`.
        public static let propertyList = UTType("com.apple.property-list", ["public.data"], ["plist"])
        /// `public.symlink`.
        public static let symbolicLink = UTType("public.symlink", ["public.item"])
        /// `com.apple.alias-file`: a Finder alias.
        public static let aliasFile = UTType("com.apple.alias-file", ["public.data"])

        /// The registry of system types.
        static let system: [UTType] = [
            item, content, data, directory, folder, package, text, plainText, utf8PlainText, json, xml, html,
            commaSeparatedText, rtf, rtfd, compositeContent, image, png, jpeg, pdf, archive, zip, propertyList,
            symbolicLink, aliasFile,
        ]
    }
#endif
