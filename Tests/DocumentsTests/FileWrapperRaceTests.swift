// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Testing
import VolumeFixtures

/// A directory inside a package swapped, thousands of times a second, with a symbolic link to a
/// directory outside (the race harness of the secure layer): reading the package, immediately or
/// lazily, never reads what is outside.
@Suite("FileWrapper reads under a symlink-swapping race", .serialized, .requiresRealVolumes)
struct FileWrapperRaceTests {
    @Test("sub/ and a link to the outside exchanged during immediate and lazy reads: outside bytes never read", arguments: saveFileSystems)
    func swappedDirectoryNeverEscapes(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("race"))
            try fixture.file("P.pkg/sub/f.txt", "inside")
            try fixture.file("outside/f.txt", "OUTSIDE")
            #expect(symlink(fixture.path("outside"), fixture.path("P.pkg/sub-link")) == 0)
            let url = fixture.url("P.pkg")
            let swapper = RenameExchanger(fixture.path("P.pkg"), "sub", fixture.path("P.pkg"), "sub-link")
            var escapes: [String] = []
            var insideReads = 0
            var refused = 0
            for round in 0..<400 {
                let immediate = round % 2 == 0
                guard let package = try? FileWrapper(url: url, options: immediate ? .immediate : []) else {
                    refused += 1
                    continue
                }
                for (key, child) in package.fileWrappers ?? [:] where child.isDirectory {
                    // Lazily, the listing and the file are read later, after more swaps.
                    for (name, file) in child.fileWrappers ?? [:] {
                        guard let data = file.regularFileContents else {
                            refused += 1
                            continue
                        }
                        let text = String(decoding: data, as: UTF8.self)
                        if text == "OUTSIDE" { escapes.append("\(key)/\(name) (\(immediate ? "immediate" : "lazy"))") }
                        if text == "inside" { insideReads += 1 }
                    }
                }
            }
            let swaps = swapper.stop()
            print("race: \(swaps) swaps, \(insideReads) reads of the inside file, \(refused) reads refused")
            #expect(escapes.isEmpty, "read outside through a swapped link: \(escapes.prefix(5))")
            #expect(swaps > 0)
            #expect(insideReads > 0)
        }
    }
}
