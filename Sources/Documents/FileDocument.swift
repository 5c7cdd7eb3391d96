// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    /// A document whose model converts to and from a ``FileWrapper``: SwiftUI's `FileDocument`
    /// protocol on Linux, so the model code of a SwiftUI document app compiles and runs here;
    /// ``DocumentController`` opens, saves and reverts it.
    ///
    /// As SwiftUI documents it, an incremental package save starts from
    /// `configuration.existingFile`, replaces only the children that changed, and returns it; the
    /// controller's save then hard-links the rest.
    ///
    /// Its metatype is `Sendable` (`SendableMetatype`): ``DocumentController/observeExternalChanges(_:)``
    /// watches on a thread of its own, which names the controller, and so the document's type.
    /// A document type whose conformance is isolated to a global actor cannot be one.
    public protocol FileDocument: SendableMetatype {
        /// The types this document reads.
        static var readableContentTypes: [UTType] { get }
        /// The types this document writes (default: the readable ones).
        static var writableContentTypes: [UTType] { get }
        /// Reads the document from a file wrapper.
        init(configuration: ReadConfiguration) throws
        /// The file wrapper to save; `configuration.existingFile` is the one last read or saved.
        func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper

        /// What ``init(configuration:)`` reads.
        typealias ReadConfiguration = FileDocumentReadConfiguration
        /// What ``fileWrapper(configuration:)`` writes over.
        typealias WriteConfiguration = FileDocumentWriteConfiguration
    }

    extension FileDocument {
        /// The readable types.
        public static var writableContentTypes: [UTType] { readableContentTypes }
    }

    /// What a document reads: its content type and its file.
    public struct FileDocumentReadConfiguration {
        /// The content type of the file.
        public let contentType: UTType
        /// The file, as a wrapper.
        public let file: FileWrapper

        /// Creates a configuration.
        public init(contentType: UTType, file: FileWrapper) {
            self.contentType = contentType
            self.file = file
        }
    }

    /// What a document writes over: the content type, and the wrapper last read or saved (`nil` for
    /// a document never saved).
    public struct FileDocumentWriteConfiguration {
        /// The content type to write.
        public let contentType: UTType
        /// The file wrapper with the document's current on-disk contents, or `nil` if it is unsaved.
        public let existingFile: FileWrapper?

        /// Creates a configuration.
        public init(contentType: UTType, existingFile: FileWrapper?) {
            self.contentType = contentType
            self.existingFile = existingFile
        }
    }
#endif
