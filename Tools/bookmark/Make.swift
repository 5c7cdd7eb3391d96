import ArgumentParser
import BookmarkKit
import Foundation
import SystemPackage

extension BookmarkCommand {
    /// `bookmark make PATH`: bookmark data for a file or directory.
    struct Make: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make bookmark data for a file or directory (Apple's book format).",
            discussion: "Without -o, prints the data as base64 on one line.")

        @OptionGroup var global: GlobalOptions

        @Option(name: .shortAndLong, help: "Write the raw bookmark bytes to this file (replaced atomically).")
        var output: String?

        @Option(name: .customLong("relative-to"), help: "Also record the path relative to this directory.")
        var relativeTo: String?

        @Flag(help: "A minimal bookmark: no per-component IDs, resource values, user or capacity.")
        var minimal = false

        @Argument(help: "The file or directory.")
        var path: String

        func run() throws {
            let bookmark: Bookmark
            let data: [UInt8]
            do {
                bookmark = try Bookmark.create(
                    for: FilePath(path), options: minimal ? [.minimalBookmark] : [],
                    relativeTo: relativeTo.map { FilePath($0) })
                data = try bookmark.data()
            } catch {
                throw Output.fail(error, path: path).exitCode
            }
            let base64 = Data(data).base64EncodedString()
            if let output {
                do {
                    try Data(data).write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    Output.error("\(output): cannot write: \(error.localizedDescription)")
                    throw ExitStatus.failure.exitCode
                }
            }
            if global.json {
                try Output.json(MakeJSON(
                    path: bookmark.path.map(escapedPath) ?? path, size: data.count, output: output,
                    base64: output == nil ? base64 : nil, volumeUUID: bookmark.record.volume.uuid))
            } else if output == nil {
                Output.line(base64)
            }
        }
    }
}

struct MakeJSON: Encodable {
    var path: String
    var size: Int
    var output: String?
    var base64: String?
    var volumeUUID: String?
}
