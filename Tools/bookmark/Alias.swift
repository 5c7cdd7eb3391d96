// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkKit
import SystemPackage

extension BookmarkCommand {
    /// `bookmark alias TARGET ALIASFILE`: write a Finder alias file.
    struct Alias: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alias",
            abstract: "Write a Finder alias file (Apple's layout) that refers to TARGET.",
            discussion: """
                The alias holds bookmark data made with suitableForBookmarkFile after a 56-byte header, \
                and the user.com.apple.FinderInfo attribute marks it as an alias (where the file system \
                refuses extended attributes, the file is still an alias by its content). ALIASFILE is \
                replaced atomically; a symlink there is refused. Resolve it with `bookmark resolve`.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The file or directory the alias refers to.")
        var target: String

        @Argument(help: "The alias file to write.")
        var aliasFile: String

        func run() throws {
            let bookmark: Bookmark
            let write: AliasFileWrite
            do {
                bookmark = try Bookmark.create(
                    for: RawArguments.filePath(target), options: [.suitableForBookmarkFile], volumeResponseTimeout: global.volumeTimeout)
            } catch {
                throw Output.fail(error, path: error.lastKnownPath.map(escapedPath) ?? RawArguments.display(target)).exitCode
            }
            do {
                write = try bookmark.writeAliasFile(to: RawArguments.filePath(aliasFile))
            } catch {
                // The target exists: a failure here is the alias file's (1, or 13), never 3.
                throw Output.failWriting(error, output: RawArguments.display(aliasFile), what: "write the alias file").exitCode
            }
            if !write.finderInfoWritten {
                Output.error("\(RawArguments.display(aliasFile)): the file system refused the FinderInfo attribute; the alias is valid by content only")
            }
            if global.json {
                let targetBytes = bookmark.path ?? RawArguments.bytes(of: target)
                let aliasBytes = RawArguments.bytes(of: aliasFile)
                try Output.json(AliasJSON(
                    target: JSONPath.text(targetBytes), targetBase64: JSONPath.base64(targetBytes),
                    alias: JSONPath.text(aliasBytes), aliasBase64: JSONPath.base64(aliasBytes), size: write.size,
                    finderInfo: write.finderInfoWritten))
            } else {
                Output.record(RawArguments.bytes(of: aliasFile))
            }
        }
    }
}

struct AliasJSON: Encodable {
    var target: String
    var targetBase64: String?
    var alias: String
    var aliasBase64: String?
    var size: Int
    var finderInfo: Bool
}
