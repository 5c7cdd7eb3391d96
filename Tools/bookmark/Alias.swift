// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkKit
import SecureFiles
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
                replaced atomically; a symlink there is refused. An existing ALIASFILE that is not an \
                alias file is refused too (exit 1: TARGET and ALIASFILE swapped would destroy TARGET), \
                unless --force is given. Resolve it with `bookmark resolve`.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The file or directory the alias refers to.")
        var target: String

        @Argument(help: "The alias file to write.")
        var aliasFile: String

        @Flag(help: "Replace ALIASFILE even when it is an existing file that is not an alias file.")
        var force = false

        func run() throws {
            let bookmark: Bookmark
            let write: AliasFileWrite
            try refuseToClobber()
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

        /// Refuses (exit 1) an existing regular ALIASFILE that is not an alias file, unless
        /// `--force`: `bookmark alias notes.txt old.alias` with the arguments swapped replaced
        /// notes.txt silently, as `ln` would not. An alias file is replaced (refreshing one is
        /// the point); a link or folder there is left to the writer, which refuses it. This
        /// guards against a mistake, not an adversary: a file created between the check and the
        /// atomic rename is replaced.
        private func refuseToClobber() throws {
            let path = RawArguments.filePath(aliasFile)
            guard !force, let status = try? Directory.current.status(of: path), status.kind == .regular,
                !Bookmark.isAliasFile(at: path)
            else { return }
            Output.error("\(RawArguments.display(aliasFile)): refused: it exists and is not an alias file (were TARGET and "
                + "FILE swapped?); give --force to replace it")
            throw ExitStatus.failure.exitCode
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
