// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Synchronization
import Testing
import VolumeFixtures

/// Readers during repeated saves see the old package or the new one, whole: never a mix, never a
/// missing package.
@Suite("FileWrapper: readers during saves", .serialized, .requiresRealVolumes)
struct FileWrapperReaderTests {
    @Test("a reader opening the package by name during 40 saves always gets a whole package, old or new", arguments: [FixtureFileSystem.ext4, .xfs])
    func readersSeeWholePackages(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            let names = (0..<20).map { "part\($0).txt" }
            for name in names { try fixture.file("Doc.pkg/\(name)", "version 0") }
            let url = fixture.url("Doc.pkg")
            let package = try FileWrapper(url: url)

            let stop = Atomic(false)
            let reads = Atomic(0)
            let torn = Mutex<[String]>([])
            let staleReads = Atomic(0)
            // The reader uses plain system calls (FileWrapper's own lock would keep it from running
            // during a save): open the package by name, list it, read every part through that
            // directory. A reader that lost a race with the removal of an old tree (a part gone
            // from a directory that is no longer the package) is not torn; one that holds the
            // current package and sees missing parts or mixed versions is.
            let path = fixture.path("Doc.pkg")
            let reader = Thread {
                while !stop.load(ordering: .relaxed) {
                    let directory = open(path, O_RDONLY | O_DIRECTORY)
                    guard directory >= 0 else {
                        torn.withLock { $0.append("no package at the name (errno \(errno))") }
                        continue
                    }
                    defer { close(directory) }
                    var versions = Set<String>()
                    var missing = 0
                    for name in names {
                        let file = openat(directory, name, O_RDONLY)
                        guard file >= 0 else {
                            missing += 1
                            continue
                        }
                        var buffer = [UInt8](repeating: 0, count: 64)
                        let count = read(file, &buffer, 64)
                        close(file)
                        versions.insert(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self))
                    }
                    if missing > 0 || versions.count != 1 {
                        var held = stat(), current = stat()
                        let stillCurrent = fstat(directory, &held) == 0 && stat(path, &current) == 0 && held.st_ino == current.st_ino
                        if stillCurrent {
                            torn.withLock { $0.append("\(missing) missing, versions \(versions.sorted())") }
                        } else {
                            staleReads.add(1, ordering: .relaxed)
                        }
                    }
                    reads.add(1, ordering: .relaxed)
                }
            }
            reader.start()
            for version in 1...40 {
                for name in names {
                    if let old = package.fileWrappers?[name] { package.removeFileWrapper(old) }
                    package.addRegularFile(withContents: Data("version \(version)".utf8), preferredFilename: name)
                }
                try package.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)
            }
            stop.store(true, ordering: .relaxed)
            while !reader.isFinished { usleep(1000) }
            #expect(torn.withLock { $0 }.isEmpty, "\(torn.withLock { $0.prefix(5) })")
            #expect(reads.load(ordering: .relaxed) > 10)
            print("reader: \(reads.load(ordering: .relaxed)) reads, \(staleReads.load(ordering: .relaxed)) of an old tree being removed")
            #expect(try fixture.text("Doc.pkg/part7.txt") == "version 40")
        }
    }
}
