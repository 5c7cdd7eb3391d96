import ArgumentParser
import BookmarkFormat
import BookmarkKit
import FileIdentity
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark resolve SOURCE`: find the bookmarked file now.
    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find a bookmarked file: prints its path now, and why.",
            discussion: """
                SOURCE is a file of raw bookmark bytes, base64 text, a Finder alias file, or - for \
                standard input. A stale bookmark (resolved, but something recorded changed) exits 0, \
                or 10 with --strict. The order of attempts is in Docs/RESOLUTION.md.

                """ + ExitStatus.helpTable)

        @OptionGroup var global: GlobalOptions

        @Flag(name: .customLong("no-search"), help: "Do not search the volume; path and handle only.")
        var noSearch = false

        @Option(name: .customLong("budget-ms"), help: "Search time budget in milliseconds (default 2000).")
        var budgetMilliseconds: Int?

        @Flag(help: "Rewrite a stale SOURCE file with fresh data (atomically, unknown keys kept).")
        var refresh = false

        @Flag(help: "Exit 10 when the bookmark is stale.")
        var strict = false

        @Flag(name: .customLong("cross-volume"), help: "Also look on other volumes by name, size and modification time.")
        var crossVolume = false

        @Option(name: .customLong("relative-to"), help: "The directory a relative bookmark is resolved against.")
        var relativeTo: String?

        @Option(name: .customLong("verify"), help: "Require data signed with this key file (exit 6 otherwise).")
        var keyFile: String?

        @Option(name: .customLong("within"), help: "With --verify: the result must lie beneath this directory (repeatable).")
        var within: [String] = []

        @Argument(help: "The bookmark: a file, or - for standard input.")
        var source: String

        func validate() throws {
            if let budgetMilliseconds, budgetMilliseconds < 0 { throw ValidationError("--budget-ms must be 0 or more") }
            if refresh && source == "-" { throw ValidationError("--refresh needs a SOURCE file, not -") }
            if !within.isEmpty && keyFile == nil { throw ValidationError("--within needs --verify") }
            if refresh && keyFile != nil { throw ValidationError("--refresh cannot re-sign; use `bookmark refresh --sign KEYFILE`") }
        }

        func run() throws {
            let (decoded, raw) = try SourceInput.decode(source, volumeTimeout: global.volumeTimeout)
            let bookmark = Bookmark(record: decoded.record)
            var options = ResolutionOptions(
                search: !noSearch, crossVolumeHeuristic: crossVolume, volumeResponseTimeout: global.volumeTimeout)
            if let budgetMilliseconds { options.budget.time = .milliseconds(budgetMilliseconds) }
            options.relativeTo = relativeTo.map { FilePath($0) }
            if let keyFile {
                try Signing.resolveVerified(
                    raw: raw, decoded: decoded, keyFile: keyFile, within: within, source: source, json: global.json,
                    options: options, strict: strict)
                return
            }
            let resolution: Resolution
            var refreshed = false
            do {
                if refresh {
                    // Resolves, and when stale rewrites SOURCE atomically in its own container with
                    // unknown keys (and an alias file's Finder info) kept.
                    let outcome = try Bookmark.refreshFile(at: FilePath(source), options: options)
                    resolution = outcome.resolution
                    refreshed = outcome.rewritten
                } else {
                    resolution = try bookmark.resolve(options)
                }
            } catch {
                if global.json { try? Output.json(ResolveFailureJSON(error)) }
                throw Output.fail(error, path: source).exitCode
            }
            if global.json {
                try Output.json(ResolveJSON(resolution, refreshed: refreshed))
            } else {
                Output.line(escapedPath(PathBytes(resolution.path).bytes))
            }
            if strict && resolution.isStale { throw ExitStatus.stale.exitCode }
        }
    }
}

func escapedPath(_ bytes: [UInt8]) -> String { PathBytes(bytes).escaped }

struct ResolveJSON: Encodable {
    struct VolumeInfo: Encodable {
        var uuid: String?
        var uuidSource: String
        var mountPoint: String
        var persistent: Bool
    }
    var path: String
    var stale: Bool
    var matchedBy: String
    var changes: [String]
    var inTrash: Bool
    var volume: VolumeInfo
    var entriesSearched: Int
    var notes: [String]
    var refreshed: Bool

    init(_ resolution: Resolution, refreshed: Bool) {
        path = escapedPath(PathBytes(resolution.path).bytes)
        stale = resolution.isStale
        matchedBy = resolution.matchedBy.rawValue
        changes = Change.ordered(resolution.changes).map(\.rawValue)
        inTrash = resolution.isInTrash
        volume = VolumeInfo(
            uuid: resolution.volume.uuid, uuidSource: resolution.volume.uuidSource.rawValue,
            mountPoint: escapedPath(resolution.volume.mountPoint), persistent: resolution.volume.isPersistent)
        entriesSearched = resolution.entriesSearched
        notes = resolution.notes
        self.refreshed = refreshed
    }
}

struct ResolveFailureJSON: Encodable {
    var error: String
    var message: String
    var lastKnownPath: String?
    var volumeName: String?
    var volumeUUID: String?
    var attachedDevice: String?

    init(_ error: any Error) {
        if let error = error as? BookmarkError {
            self.error = error.code.rawValue
            message = error.message
            lastKnownPath = error.lastKnownPath.map(escapedPath)
            volumeName = error.volumeName
            volumeUUID = error.volumeUUID
            attachedDevice = error.attachedDevice
        } else {
            self.error = "failure"
            message = String(describing: error)
        }
    }
}
