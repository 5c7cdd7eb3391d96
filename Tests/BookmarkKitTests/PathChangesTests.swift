// SPDX-License-Identifier: Apache-2.0
@testable import BookmarkKit
import SecureFiles
import Testing

/// What a resolution reports changed in the path: the in-place comparison against names and
/// parents made the long way.
@Suite("Path changes")
struct PathChangesTests {
    static let cases: [(now: PathBytes, then: PathBytes, expected: Set<Change>)] = [
        ("/a/b", "/a/c", [.path, .name]),
        ("/x/b", "/a/b", [.path, .parent]),
        ("/x/c", "/a/b", [.path, .name, .parent]),
        ("/b", "/a/b", [.path, .parent]),
        ("/b", "/c", [.path, .name]),
        ("/a/b/c", "/a/bc", [.path, .parent, .name]),
        ("/ab/c", "/a/bc", [.path, .parent, .name]),
        // Not in normal form: the long way, which normalises.
        ("/a//b", "/a/b/", [.path]),
        ("/a/b/", "/a/c", [.path, .name]),
        ("/", "/a", [.path, .name]),
    ]

    @Test("name, parent, both, or neither, as the names and parents say", arguments: cases)
    func changes(now: PathBytes, then: PathBytes, expected: Set<Change>) {
        #expect(Resolver.pathChanges(now, from: then) == expected)
        var reference: Set<Change> = [.path]
        if now.lastComponent != then.lastComponent { reference.insert(.name) }
        if now.parent != then.parent { reference.insert(.parent) }
        #expect(Resolver.pathChanges(now, from: then) == reference)
    }
}
