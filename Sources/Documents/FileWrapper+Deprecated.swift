// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    /// Apple's path-based calls, deprecated since macOS 10.10 and never on iOS, kept so old code
    /// compiles; each forwards to its URL-based successor.
    extension FileWrapper {
        /// Reads the item at `path` immediately; `nil` when it cannot be read.
        @available(*, deprecated, renamed: "init(url:options:)")
        public convenience init?(path: String) {
            self.init(kind: .regular, attributes: [:])
            do {
                try read(from: URL(fileURLWithPath: path), options: .immediate)
            } catch {
                return nil
            }
        }

        /// A symbolic-link wrapper whose link text is `path`.
        @available(*, deprecated, renamed: "init(symbolicLinkWithDestinationURL:)")
        public convenience init(symbolicLinkWithDestination path: String) {
            self.init(kind: .symlink, attributes: FileWrapper.defaultAttributes(.symlink))
            storedLinkTarget = Array(path.utf8)
        }

        /// Whether the item at `path` no longer matches this wrapper: the negation of
        /// ``matchesContents(of:)``.
        @available(*, deprecated, renamed: "matchesContents(of:)")
        public func needsToBeUpdated(fromPath path: String) -> Bool {
            !matchesContents(of: URL(fileURLWithPath: path))
        }

        /// Reads the wrapper again from `path` when it no longer matches; returns whether it did.
        @available(*, deprecated, renamed: "read(from:options:)")
        public func update(fromPath path: String) -> Bool {
            guard needsToBeUpdated(fromPath: path) else { return false }
            return (try? read(from: URL(fileURLWithPath: path))) != nil
        }

        /// Writes to `path`; returns whether it succeeded.
        @available(*, deprecated, renamed: "write(to:options:originalContentsURL:)")
        public func write(toFile path: String, atomically: Bool, updateFilenames: Bool) -> Bool {
            var options: WritingOptions = []
            if atomically { options.insert(.atomic) }
            if updateFilenames { options.insert(.withNameUpdating) }
            return (try? write(to: URL(fileURLWithPath: path), options: options, originalContentsURL: nil)) != nil
        }

        /// Adds a child read from `path` (its last component as preferred filename); returns its key.
        @available(*, deprecated, renamed: "addFileWrapper(_:)")
        public func addFile(withPath path: String) -> String {
            guard let child = try? FileWrapper(url: URL(fileURLWithPath: path), options: .immediate) else { return "" }
            return addFileWrapper(child)
        }

        /// Adds a symbolic-link child; returns its key.
        @available(*, deprecated, renamed: "addFileWrapper(_:)")
        public func addSymbolicLink(withDestination path: String, preferredFilename filename: String) -> String {
            let child = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: path))
            child.locked { child.storedLinkTarget = Array(path.utf8) }
            child.preferredFilename = filename
            return addFileWrapper(child)
        }

        /// The link text of a symbolic-link wrapper (`""` for another kind).
        @available(*, deprecated, renamed: "symbolicLinkDestinationURL")
        public func symbolicLinkDestination() -> String {
            symbolicLinkDestinationBytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }
#endif
