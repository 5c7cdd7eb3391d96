// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the few items an unmoved file's resolution needs, read straight from the bytes.

/// What the quick check of an unmoved file needs from bookmark data, read without decoding the
/// rest: the path, the inode, the volume's UUID, path and name, and the per-file Linux facts.
///
/// A batch resolving stored bookmarks (a library's launch) reads these first, and decodes the
/// whole bookmark only when the quick check does not settle it. Full decoding validates every
/// item; this reads only the items it returns, each bounds-checked, and gives up (`nil`) at the
/// first thing outside the plain layout our encoder and Apple's write: an item of another type,
/// a number of another width, a TOC chain with more than one TOC. The caller then decodes the
/// bookmark in full, so every unusual or hostile record takes the validated path, and the quick
/// path can never read outside `bytes` or trap.
package struct BookmarkQuickView: Sendable {
    /// The recorded path: the components of `0x1004` joined, `/` first.
    package var path: [UInt8] = []
    /// `0x1030`, else the last of `0x1005`.
    package var inode: UInt64?
    /// `0x2011`, the volume UUID's bytes (copied only when the view was asked to copy them).
    package var volumeUUID: [UInt8]?
    /// `0x2002` (as ``volumeUUID``).
    package var volumePath: [UInt8]?
    /// `0x2010` (as ``volumeUUID``).
    package var volumeName: [UInt8]?
    /// Where ``volumeUUID``, ``volumePath`` and ``volumeName`` are in the bytes read: a batch
    /// compares them there with the last bookmark's volume, and copies them only when they differ.
    package var volumeUUIDSpan: Range<Int>?
    package var volumePathSpan: Range<Int>?
    package var volumeNameSpan: Range<Int>?
    /// Whether the bookmark records a relative location (`0x1055`).
    package var isRelative = false
    /// The per-file Linux facts (the volume's own are not read).
    package var linux = LinuxFileFacts()

    /// Reads `bytes`; `nil` when they are not the plain layout (see the type's description).
    /// `copyingVolumeStrings: false` leaves the volume's UUID, path and name in their spans only.
    package init?(_ bytes: UnsafeRawBufferPointer, copyingVolumeStrings: Bool = true) {
        guard let spans = BookmarkQuickSpans(bytes), let joined = spans.joinedPath(bytes) else { return nil }
        func copy(_ span: Range<Int>?) -> [UInt8]? { span.map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) } }
        path = joined
        inode = spans.inode
        isRelative = spans.isRelative
        volumeUUIDSpan = spans.volumeUUIDSpan
        volumePathSpan = spans.volumePathSpan
        volumeNameSpan = spans.volumeNameSpan
        if copyingVolumeStrings {
            volumeUUID = copy(volumeUUIDSpan)
            volumePath = copy(volumePathSpan)
            volumeName = copy(volumeNameSpan)
        }
        linux.generation = spans.file.generation
        linux.handleType = spans.file.handleType
        linux.handle = copy(spans.file.handle)
        linux.birthTime = spans.file.birthTime
        linux.subvolumeID = spans.file.subvolumeID
        linux.mountRelativePath = spans.mountRelativePath(bytes).map { ByteString(bytes: $0) }
    }
}

