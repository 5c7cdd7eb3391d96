// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: a whole bookmark: header facts and its chain of TOCs.

/// Bookmark data in Apple's `book` layout, as raw tables of contents.
///
/// Decoding keeps every TOC, key, item type and number subtype, including keys and types this
/// codec does not know, so `BookmarkDocument(decoding: doc.encoded())` equals `doc`. The typed
/// view is ``BookmarkRecord``.
package struct BookmarkDocument: Sendable, Hashable {
    /// The version word Apple writes at offset 8.
    package static let appleVersion: UInt32 = 0x1004_0000
    /// The header size Apple writes at offset 12.
    package static let appleHeaderSize = 48

    /// The version word (offset 8 of the header).
    package var version: UInt32
    /// The tables of contents, in chain order; the first is where the header points.
    package var tocs: [BookmarkTOC]

    /// Creates a document.
    package init(version: UInt32 = BookmarkDocument.appleVersion, tocs: [BookmarkTOC] = [BookmarkTOC(id: 1)]) {
        self.version = version
        self.tocs = tocs
    }

    /// The TOC with the given id, if any; setting replaces it or appends a new one (setting
    /// `nil` removes it).
    package subscript(tocID id: UInt32) -> BookmarkTOC? {
        get { tocs.first { $0.id == id } }
        set {
            if let i = tocs.firstIndex(where: { $0.id == id }) {
                if let v = newValue { tocs[i] = v } else { tocs.remove(at: i) }
            } else if var v = newValue {
                v.id = id
                tocs.append(v)
            }
        }
    }

    /// The target's TOC: id 1 when present, else the first TOC.
    package var targetTOC: BookmarkTOC? { targetIndex.map { tocs[$0] } }

    /// The index of ``targetTOC`` in ``tocs``.
    var targetIndex: Int? { tocs.firstIndex { $0.id == BookmarkTOC.targetID } ?? (tocs.isEmpty ? nil : 0) }

    /// Changes the target TOC in place, creating TOC 1 first if there is none.
    ///
    /// In place matters: a copy of the TOC would share its entries array, and the first write
    /// would then copy every entry (a creation sets a dozen keys).
    mutating func modifyTargetTOC<R, E>(_ body: (inout BookmarkTOC) throws(E) -> R) throws(E) -> R {
        if let i = targetIndex { return try body(&tocs[i]) }
        tocs.append(BookmarkTOC(id: BookmarkTOC.targetID))
        return try body(&tocs[tocs.count - 1])
    }

    /// The item stored under `key` in the target TOC (id 1); setting creates TOC 1 if needed.
    package subscript(key: BookmarkKey) -> BookmarkItem? {
        get { targetIndex.flatMap { tocs[$0][key] } }
        set { modifyTargetTOC { $0[key] = newValue } }
    }
}
