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
                leaves the old file or the new one). Prints `refreshed`, `fresh` or `failed` for each. \
                Exits with the code of the first failure, after trying them all.

                """ + ExitStatus.helpTable)

        @OptionGroup var global: GlobalOptions

        @Flag(name: .customLong("no-search"), help: "Do not search the volume; path and handle only.")
        var noSearch = false

        @Option(name: .customLong("sign"), help: "Re-sign refreshed data with this key file.")
        var keyFile: String?

        @Argument(help: "Bookmark or alias files.")
        var sources: [String]

        func validate() throws {
            if sources.isEmpty { throw ValidationError("give at least one SOURCE") }
            if sources.contains("-") { throw ValidationError("refresh needs files, not -") }
        }

        func run() throws {
            var key: SigningKey?
            if let keyFile {
                switch Result(catching: { () throws(SecurityScopeError) -> SigningKey in try SigningKey.load(from: FilePath(keyFile)) }) {
                case .success(let loaded): key = loaded
                case .failure(let error):
                    Output.error("\(keyFile): \(error.description)")
                    throw ExitStatus.signatureInvalid.exitCode
                }
            }
            var reports: [RefreshJSON] = []
            var firstFailure: ExitStatus?
            for source in sources {
                // The SOURCE itself first: missing or unreadable is 66, not a bookmark file is 5.
                if case .failure(let status) = SourceInput.read(source, volumeTimeout: global.volumeTimeout) {
                    if firstFailure == nil { firstFailure = status }
                    reports.append(RefreshJSON(
                        source: source, status: "failed", path: nil, container: nil, changes: [],
                        error: status == .sourceUnreadable ? "sourceUnreadable" : "corruptData"))
                    if !global.json { Output.line("failed \(source)") }
                    continue
                }
                do {
                    let outcome = try Bookmark.refreshFile(
                        at: FilePath(source), options: ResolutionOptions(search: !noSearch, volumeResponseTimeout: global.volumeTimeout), signingKey: key)
                    let report = RefreshJSON(
                        source: source, status: outcome.rewritten ? "refreshed" : "fresh",
                        path: escapedPath(PathBytes(outcome.resolution.path).bytes), container: outcome.container.rawValue,
                        changes: Change.ordered(outcome.resolution.changes).map(\.rawValue), error: nil)
                    reports.append(report)
                    if !global.json { Output.line("\(report.status) \(source) -> \(report.path ?? "")") }
                } catch {
                    let status = Output.fail(error, path: source)
                    if firstFailure == nil { firstFailure = status }
                    reports.append(RefreshJSON(
                        source: source, status: "failed", path: nil, container: nil, changes: [],
                        error: error.code.rawValue))
                    if !global.json { Output.line("failed \(source)") }
                }
            }
            if global.json { try Output.json(reports) }
            if let firstFailure { throw firstFailure.exitCode }
        }
    }
}

struct RefreshJSON: Encodable {
    var source: String
    var status: String
    var path: String?
    var container: String?
    var changes: [String]
    var error: String?
}
