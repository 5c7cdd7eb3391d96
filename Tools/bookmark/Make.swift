import ArgumentParser
import BookmarkFormat
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

        @Option(name: .customLong("sign"), help: "Sign with this key file (created with mode 0600 when missing).")
        var keyFile: String?

        @Flag(name: .customLong("read-only"), help: "With --sign: record a read-only scope.")
        var readOnly = false

        @Argument(help: "The file or directory.")
        var path: String

        func validate() throws {
            if readOnly && keyFile == nil { throw ValidationError("--read-only needs --sign") }
        }

        func run() throws {
            var bookmark: Bookmark
            let data: [UInt8]
            let signing = try keyFile.map(Signing.loadOrCreateKey)
            do {
                var options: BookmarkCreationOptions = minimal ? [.minimalBookmark] : []
                if signing != nil { options.insert(.withSecurityScope) }
                if readOnly { options.insert(.securityScopeAllowOnlyReadAccess) }
                bookmark = try Bookmark.create(
                    for: FilePath(path), options: options,
                    relativeTo: relativeTo.map { FilePath($0) }, volumeResponseTimeout: global.volumeTimeout)
                if let signing { bookmark = try signing.key.sign(bookmark) }
                data = try bookmark.data()
            } catch {
                throw Output.fail(error, path: path).exitCode
            }
            let base64 = Data(data).base64EncodedString()
            if let output {
                do {
                    try Bookmark.writeAtomically(data, to: FilePath(output))
                } catch {
                    throw Output.fail(error, path: output).exitCode
                }
            }
            if global.json {
                try Output.json(MakeJSON(
                    path: bookmark.path.map(escapedPath) ?? path, size: data.count, output: output,
                    base64: output == nil ? base64 : nil, volumeUUID: bookmark.record.volume.uuid,
                    signed: signing != nil, keyCreated: signing?.created, readOnly: signing != nil ? readOnly : nil))
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
    var signed: Bool
    var keyCreated: Bool?
    var readOnly: Bool?
}
