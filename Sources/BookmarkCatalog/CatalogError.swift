// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles

/// Why a catalog operation failed: one type, with a code to switch on, a sentence, and the cause.
public struct CatalogError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// The catalog file cannot be opened or created, or is not a catalog.
        case cannotOpen
        /// The catalog was written by a newer version of this library (its schema is newer).
        case newerSchema
        /// A scan root cannot be opened or identified.
        case rootUnavailable
        /// The database refused a read or a write (disk full, read-only, corrupt).
        case database
        /// A search pattern is not a valid glob or regular expression.
        case badPattern
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for a person.
    public var message: String
    /// The path involved (the catalog or the root), exact bytes.
    public var path: [UInt8]?
    /// The file-system error under it, with its syscall and errno.
    public var fileSystemError: FileSystemError?
    /// The underlying error's description (SQLite's message, FileIdentity's error).
    public var underlying: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: [UInt8]? = nil, fileSystemError: FileSystemError? = nil, underlying: String? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.fileSystemError = fileSystemError
        self.underlying = underlying
    }

    /// The message, the path and the cause.
    public var description: String {
        var text = message
        if let path { text += " (\(PathBytes(path).escaped))" }
        if let fileSystemError { text += ": \(fileSystemError)" } else if let underlying { text += ": \(underlying)" }
        return text
    }
}
