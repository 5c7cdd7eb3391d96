// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkKit
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark ref PATH` / `bookmark ref --resolve URL`: file-reference URLs.
    struct Ref: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ref",
            abstract: "Print the file-reference URL of PATH, or (--resolve) the current path of a URL.",
            discussion: """
                A file-reference URL (file:///.file/id=MOUNT.INODE.GENERATION, a trailing / for \
                directories) names an object by identity while its volume stays mounted: it follows \
                renames and moves within the volume, and fails (exit 4) after an unmount, remount or \
                reboot, or (exit 3) when the object was deleted. Store bookmarks, not these.

                """ + ExitStatus.helpTable)

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Treat the argument as a file-reference URL and print its current path.")
        var resolve = false

        @Option(name: .customLong("budget-ms"), help: "Search time budget in milliseconds (default 2000).")
        var budgetMilliseconds: Int?

        @Argument(help: ArgumentHelp("A path, or with --resolve a file-reference URL.", valueName: "path-or-url"))
        var argument: String

        func run() throws {
            if !resolve {
                let reference: FileReferenceURL
                do {
                    reference = try FileReferenceURL(for: RawArguments.filePath(argument))
                } catch {
                    throw Output.fail(error, path: RawArguments.display(argument)).exitCode
                }
                if global.json {
                    try Output.json(RefJSON(
                        url: reference.string, path: JSONPath.text(RawArguments.bytes(of: argument)),
                        pathBase64: JSONPath.base64(RawArguments.bytes(of: argument)), mountID: reference.mountID.rawValue, inode: reference.inode,
                        generation: reference.generation, directory: reference.isDirectory, method: nil,
                        entriesSearched: nil))
                } else {
                    Output.line(reference.string)
                }
                return
            }
            guard let reference = FileReferenceURL(string: argument) else {
                Output.error("\(RawArguments.display(argument)): not a file-reference URL (file:///.file/id=MOUNT.INODE[.GENERATION])")
                throw ExitStatus.usage.exitCode
            }
            var budget = SearchBudget.default
            if let budgetMilliseconds { budget.time = .milliseconds(max(0, budgetMilliseconds)) }
            let found: FileReferenceResolution
            do {
                found = try reference.resolve(budget: budget)
            } catch {
                if global.json { try? Output.json(ResolveFailureJSON(error)) }
                throw Output.fail(error, path: RawArguments.display(argument)).exitCode
            }
            if global.json {
                try Output.json(RefJSON(
                    url: reference.string, path: JSONPath.text(PathBytes(found.path).bytes),
                    pathBase64: JSONPath.base64(PathBytes(found.path).bytes), mountID: reference.mountID.rawValue,
                    inode: reference.inode, generation: reference.generation, directory: reference.isDirectory,
                    method: found.method.rawValue, entriesSearched: found.entriesSearched))
            } else {
                Output.record(PathBytes(found.path).bytes)
            }
        }
    }
}

struct RefJSON: Encodable {
    var url: String
    var path: String
    var pathBase64: String?
    var mountID: UInt64
    var inode: UInt64
    var generation: UInt32?
    var directory: Bool
    var method: String?
    var entriesSearched: Int?
}
