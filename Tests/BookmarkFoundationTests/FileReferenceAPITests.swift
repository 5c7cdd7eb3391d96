// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// Apple's `NSURL.fileReferenceURL()` / `isFileReferenceURL()` on a real ext4 volume.
@Suite("Apple's file-reference URL API", .serialized, .requiresRealVolumes)
struct FileReferenceAPITests {
    @Test("fileReferenceURL() names the file across a rename; isFileReferenceURL() tells them apart")
    func fileReference() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = URL(fileURLWithPath: volume.path("a.txt"))
            try Data("a".utf8).write(to: file)
            let reference = try #require((file as NSURL).fileReferenceURL())
            #expect((reference as NSURL).isFileReferenceURL())
            #expect(!(file as NSURL).isFileReferenceURL())
            #expect(reference.absoluteString.hasPrefix("file:///.file/id="))
            #expect((reference as NSURL).fileReferenceURL() == reference)
            let renamed = URL(fileURLWithPath: volume.path("b.txt"))
            try FileManager.default.moveItem(at: file, to: renamed)
            let parsed = try #require(FileReferenceURL(string: reference.absoluteString))
            #expect(try parsed.resolve().path.string == renamed.path)
            #expect((URL(fileURLWithPath: volume.path("missing")) as NSURL).fileReferenceURL() == nil)
            #expect((URL(string: "https://example.com/")! as NSURL).fileReferenceURL() == nil)
        }
    }
}
