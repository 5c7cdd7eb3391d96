// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import Testing

/// What follows the bookmark data in an input: nothing, more bookmarks stored back to back (a
/// library file), or anything else. Decoding reads the first bookmark either way; the counts let
/// a caller that would rewrite the input refuse it.
@Suite("Bytes after the bookmark data")
struct TrailingBytesTests {
    @Test("one bookmark: none; several back to back: their count; anything else: bytes, no count")
    func counts() throws {
        let first = try Fixtures.bytes("fq-sample2.book")
        let second = try Fixtures.bytes("fq-sample3.book")
        let alone = try BookmarkSource(decoding: first)
        #expect(alone.trailingByteCount == 0)
        #expect(alone.storedBookmarkCount == nil)

        let library = try BookmarkSource(decoding: first + second + first)
        #expect(library.trailingByteCount == second.count + first.count)
        #expect(library.storedBookmarkCount == 3)
        #expect(library.record.path == alone.record.path, "the first bookmark is what decodes")

        // The same bytes as base64 text.
        let text = Array(Data(first + second).base64EncodedString().utf8)
        let decodedText = try BookmarkSource(decoding: text)
        #expect(decodedText.wasBase64)
        #expect(decodedText.storedBookmarkCount == 2)

        // Not framed as bookmark data: zeros, a `book` header cut short, a length past the end.
        var cutShort = second
        cutShort.removeLast(8)
        var tooLong = second
        tooLong[4] &+= 1
        for tail in [[UInt8](repeating: 0, count: 7), Array(second.prefix(19)), cutShort, tooLong] {
            let source = try BookmarkSource(decoding: first + tail)
            #expect(source.trailingByteCount == tail.count)
            #expect(source.storedBookmarkCount == nil)
        }

        // Alias files and alias records carry their own framing: never counted.
        let alias = try BookmarkSource(decoding: try Fixtures.bytes("perl-folder.alias"))
        #expect(alias.trailingByteCount == 0)
    }
}
