// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkFormat
import BookmarkKit
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark refresh SOURCE...`: rewrite stale bookmark and alias files in place.
    struct RefreshFiles: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh",
            abstract: "Resolve bookmark or alias files and rewrite the stale ones with fresh data.",
            discussion: """
                Each SOURCE (raw bookmark data, base64 text or an alias file) is resolved; a stale one is \
                rewritten in the same container, keeping keys the fresh data lacks, atomically (a crash \
                leaves the old file or the new one). Prints `refreshed`, `fresh` or `failed`, the SOURCE \
                and the path now for each, one record per SOURCE. Stops at the first failure unless \
                --keep-going; exits with the most severe failure's code (\(DocPages.cite("CLI.md"))).

                """ + ExitStatus.helpTable)

        @OptionGroup var global: GlobalOptions

        @Flag(name: .customLong("no-search"), help: "Do not search the volume; path and handle only.")
        var noSearch = false

        @Option(name: .customLong("sign"), help: "Re-sign refreshed data with this key file.")
        var keyFile: String?

        @OptionGroup var batch: BatchOptions

        @Argument(help: "Bookmark or alias files.")
        var sources: [String] = []

        mutating func validate() throws {
            sources = FoldedArguments.unfold(sources)  // before anything reads the list
            if sources.isEmpty && batch.filesFrom == nil { throw ValidationError("give at least one SOURCE, or --files-from") }
            if sources.contains("-") { throw ValidationError("refresh needs files, not -") }
        }

        func run() throws {
            var key: SigningKey?
            if let keyFile {
                switch Result(catching: { () throws(SecurityScopeError) -> SigningKey in
                    try SigningKey.load(from: RawArguments.filePath(keyFile))
                }) {
                case .success(let loaded): key = loaded
                case .failure(let error): throw Signing.keyFailure(error, keyFile: keyFile).exitCode
                }
            }
            let inputs = try batch.inputs(sources)
            // A batch (several SOURCEs, or --files-from) prints JSON Lines, as every batch command
            // does; one SOURCE one pretty JSON object. (Several SOURCEs on the command line printed
            // one JSON array, unlike every other command, and unlike the same list through
            // --files-from.)
            let lines = batch.isBatch(sources)
            let progress = BatchProgressLine(verb: "refreshing", total: inputs.count)
            defer { progress.finish() }
            var statuses: [ExitStatus] = []
            // Leftovers swept once per folder, records held back, each folder synced once before
            // the records naming its files leave (RewrittenFolders).
            let folders = RewrittenFolders()
            try folders.during {
            for (index, source) in inputs.enumerated() {
                // Once stdout failed, no more rewrites: their records could not be printed.
                if Output.stdoutFailure != nil { break }
                progress.update(done: index, total: inputs.count)
                let (report, status) = refreshOne(source, key: key, folders: folders)
                statuses.append(status)
                if global.json {
                    if lines { try Output.jsonLine(report) } else { try Output.json(report) }
                } else {
                    var line = Array((report.status + " ").utf8) + source.bytes
                    if let path = report.pathBytes { line += Array(" -> ".utf8) + path }
                    Output.record(line, terminator: batch.terminator)
                }
                if status != .success && !batch.keepGoing { break }
            }
            }
            progress.finish()
            if folders.reportFailure() { statuses.append(.failure) }
            let worst = ExitStatus.mostSevere(statuses)
            if worst != .success { throw worst.exitCode }
        }

        private func refreshOne(_ source: PathBytes, key: SigningKey?, folders: RewrittenFolders) -> (RefreshJSON, ExitStatus) {
            // The SOURCE itself first: missing or unreadable is 66, not one bookmark (a library file
            // included, with the hint that names `resolve --stored --refresh`) is 5.
            if case .failure(let status) = SourceInput.decode(source, volumeTimeout: global.volumeTimeout) {
                return (RefreshJSON(source: source, status: "failed", path: nil, container: nil, changes: [], error: status.name, exitStatus: status), status)
            }
            do {
                let deferred = folders.defersSync(for: source)
                let outcome = try Bookmark.refreshFile(
                    at: source.filePath, options: ResolutionOptions(search: !noSearch, volumeResponseTimeout: global.volumeTimeout),
                    signingKey: key, syncingDirectory: !deferred)
                if deferred && outcome.rewritten { folders.wrote(source) }
                return (RefreshJSON(
                    source: source, status: outcome.rewritten ? "refreshed" : "fresh",
                    path: PathBytes(outcome.resolution.path).bytes, container: outcome.container.rawValue,
                    changes: Change.ordered(outcome.resolution.changes).map(\.rawValue), error: nil, exitStatus: .success), .success)
            } catch {
                let status: ExitStatus
                // A link is never rewritten (neither replaced by a file nor written through, which
                // would change a file the link only points to): one message, saying what to give
                // instead (the refusal's own message before it said the same thing less usefully).
                if let kind = try? Directory.current.status(of: source.filePath).kind, kind == .symlink {
                    // The name is not put into a shell command: a hostile one would run when pasted.
                    Output.error("\(source.escaped): refused: a symbolic link, which refresh does not rewrite; give the file "
                        + "it points to (readlink -f prints it)")
                    status = .failure
                } else {
                    status = Output.fail(error, path: source.escaped)
                }
                return (RefreshJSON(
                    source: source, status: "failed", path: nil, container: nil, changes: [], error: error.code.rawValue,
                    exitStatus: status), status)
            }
        }
    }
}

/// One record of `bookmark refresh --json`.
struct RefreshJSON: Encodable {
    var source: String
    var sourceBase64: String?
    var status: String
    var path: String?
    var pathBase64: String?
    var container: String?
    var changes: [String]
    var error: String?
    var exitStatus: Int32
    /// The resolved path's bytes, for plain output (not encoded).
    var pathBytes: [UInt8]?

    init(
        source: PathBytes, status: String, path: [UInt8]?, container: String?, changes: [String], error: String?,
        exitStatus: ExitStatus
    ) {
        self.source = JSONPath.text(source.bytes)
        sourceBase64 = JSONPath.base64(source.bytes)
        self.status = status
        self.path = path.map(JSONPath.text)
        pathBase64 = path.flatMap(JSONPath.base64)
        self.container = container
        self.changes = changes
        self.error = error
        self.exitStatus = exitStatus.rawValue
        pathBytes = path
    }

    enum CodingKeys: String, CodingKey {
        case source, sourceBase64, status, path, pathBase64, container, changes, error, exitStatus
    }
}
