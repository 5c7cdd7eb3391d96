// SPDX-License-Identifier: Apache-2.0
// Reads the shared Apple fixtures (never copied into the project).
import Foundation
import BookmarkFormat

enum Fixtures {
    /// `<package root>/../shared/fixtures/apple`, found from this file's path.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Tests/BookmarkFormatTests/Fixtures.swift → package root
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")
    }()

    static let bookmarkNames = ["fq-sample1.book", "fq-sample2.book", "fq-sample3.book", "fq-sample4.book"]
    static let aliasNames = ["perl-folder.alias", "perl-removable.alias", "perl-root.alias"]
    static let goodNames = bookmarkNames + aliasNames
    static let allNames = goodNames + ["fq-loop.book"]

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Decodes any fixture (bookmark or alias file) to a record.
    static func record(_ name: String) throws -> BookmarkRecord {
        try BookmarkSource(decoding: bytes(name)).record
    }
}

extension BookmarkRecord {
    /// Path components as plain strings (test convenience).
    var componentStrings: [String]? { pathComponents?.map { $0.string ?? $0.escaped } }
}
