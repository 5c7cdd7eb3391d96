// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import BookmarkFormat
import BookmarkKit
import Foundation
import FileIdentity
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark resolve SOURCE`: find the bookmarked file now.
    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resolve",
            abstract: "Find a bookmarked file: prints its path now, and why.",
            discussion: """
                SOURCE is a file of raw bookmark bytes, base64 text, a Finder alias file, or - for \
                standard input. A stale bookmark (resolved, but something recorded changed) exits 0, \
                or 10 with --strict. The order of attempts is in \(DocPages.cite("RESOLUTION.md")).

                """ + ExitStatus.helpTable)

        @OptionGroup var global: GlobalOptions

        @Flag(name: .customLong("no-search"), help: "Do not search the volume; path and handle only.")
        var noSearch = false

        // `.unconditional`: a negative number is taken as the value and refused by validate() with
        // the rule; by default ArgumentParser read `-1` as an option and said "Missing value".
        @Option(
            name: .customLong("budget-ms"), parsing: .unconditional,
            help: "Search time budget in milliseconds, 0 or more (default 2000).")
        var budgetMilliseconds: Int?

        @Flag(help: "Rewrite a stale SOURCE file with fresh data (atomically, unknown keys kept). One that cannot be rewritten (a symlink, a folder you may not write) is still resolved: the path is printed, stderr says it was not refreshed.")
        var refresh = false

        @Flag(help: "Exit 10 when the bookmark is stale.")
        var strict = false

        @Flag(
            name: .customLong("cross-volume"),
            help: "Also look on other volumes by name, size and modification time. Only while the recorded volume is mounted: when it is not, exit 4 at once and no other volume is searched.")
        var crossVolume = false

        @Option(name: .customLong("relative-to"), help: "The directory a relative bookmark is resolved against.")
        var relativeTo: String?

        @Option(name: .customLong("verify"), help: "Require data signed with this key file (exit 6 otherwise).")
        var keyFile: String?

        @Option(name: .customLong("within"), help: "With --verify: the result must lie beneath this directory (repeatable).")
        var within: [String] = []

        @Option(
            name: .customLong("catalog"),
            help: "A volume catalog to consult (repeatable): its later place for a moved file is tried before a search, and a volume that is not mounted is answered with where and when the file was last catalogued.")
        var catalogs: [String] = []

        @Flag(
            help: "Each SOURCE holds bookmarks stored back to back (a library file, as Bookmark.resolveAll(storedIn:) reads it): one output record per bookmark, in file order, all resolved in one batch. With --refresh the stale ones are rewritten in one atomic replacement of the file.")
        var stored = false

        @OptionGroup var batch: BatchOptions

        @Argument(help: "Bookmarks: files, or - for standard input (one SOURCE only).")
        var sources: [String] = []

        mutating func validate() throws {
            sources = FoldedArguments.unfold(sources)  // before anything reads the list
            if let budgetMilliseconds, budgetMilliseconds < 0 {
                throw ValidationError("--budget-ms must be 0 or more (milliseconds), not \(budgetMilliseconds)")
            }
            if refresh && sources.contains("-") { throw ValidationError("--refresh needs a SOURCE file, not -") }
            if !within.isEmpty && keyFile == nil { throw ValidationError("--within needs --verify") }
            if refresh && keyFile != nil { throw ValidationError("--refresh cannot re-sign; use `bookmark refresh --sign KEYFILE`") }
            if sources.isEmpty && batch.filesFrom == nil { throw ValidationError("give a SOURCE, or --files-from") }
            if stored && (keyFile != nil || sources.contains("-")) {
                throw ValidationError("--stored takes library files, and cannot be combined with --verify or -")
            }
            if sources.contains("-") && (batch.isBatch(sources)) {
                throw ValidationError("- (a bookmark on standard input) is for a single SOURCE; use --files-from for many")
            }
        }

        /// What the flags ask for.
        private func settings() throws -> ResolveRun {
            var options = ResolutionOptions(
                search: !noSearch, crossVolumeHeuristic: crossVolume, volumeResponseTimeout: global.volumeTimeout)
            if let budgetMilliseconds { options.budget.time = .milliseconds(budgetMilliseconds) }
            options.relativeTo = relativeTo.map(Self.absoluteDirectory)
            if !catalogs.isEmpty { options.locationHints = CatalogHints(try catalogs.map(CatalogLocation.open)) }
            return ResolveRun(
                options: options, json: global.json, volumeTimeout: global.volumeTimeout, terminator: batch.terminator,
                keepGoing: batch.keepGoing, strict: strict, refresh: refresh, keyFile: keyFile, within: within)
        }

        /// `--relative-to DIR` as the absolute path of the directory it names, as `make
        /// --relative-to` takes it (the kernel's path of the opened directory): resolution joins
        /// it with the bookmark's relative part, so a relative DIR was silently never matched. A
        /// DIR that cannot be opened is only made absolute (resolution then says what is missing).
        static func absoluteDirectory(_ argument: String) -> FilePath {
            let path = RawArguments.path(argument)
            if let opened = try? Directory.current.open(path.filePath, options: [.pathOnly, .directory]),
                let real = try? opened.currentPathBytes()
            {
                return PathBytes(real).filePath
            }
            return PathBytes(Directory.absolute(path.bytes)).filePath
        }

        func run() throws {
            let inputs = try batch.inputs(sources)
            if stored {
                try settings().runStored(inputs)
            } else if batch.isBatch(sources) {
                try settings().runMany(inputs)
            } else if let source = inputs.first {
                try settings().runOne(source)
            }
        }
    }
}

/// `bookmark resolve` once its command line is parsed: by ArgumentParser, or by ``FastPath`` for
/// the plain `bookmark resolve SOURCE`, which takes every default.
struct ResolveRun {
    var options = ResolutionOptions()
    var json = false
    var volumeTimeout: Duration = .seconds(2)
    var terminator: UInt8 = 0x0A
    var keepGoing = false
    var strict = false
    var refresh = false
    var keyFile: String?
    var within: [String] = []
    /// With `--refresh` in a batch: the folders whose syncs wait until records leave.
    var folders: RewrittenFolders?

    /// The options of `bookmark resolve` with no flags (as ``GlobalOptions`` defaults them).
    static var defaultOptions: ResolutionOptions {
        ResolutionOptions(search: true, crossVolumeHeuristic: false, volumeResponseTimeout: .milliseconds(2000))
    }

    /// One SOURCE: a pretty JSON document with `--json`, as before batches existed.
    func runOne(_ source: PathBytes) throws {
        let outcome: ResolveOutcome
        switch SourceInput.decode(source, volumeTimeout: volumeTimeout) {
        case .success(let (decoded, raw)): outcome = resolveOne(source, decoded: decoded, raw: raw)
        case .failure(let status): throw status.exitCode
        }
        switch outcome {
        case .resolved(let resolution, let refreshed, let readOnly, let notRefreshed):
            if json {
                try Output.json(ResolveRecordJSON.resolved(
                    resolution, refreshed: refreshed, readOnly: readOnly, notRefreshed: notRefreshed))
            } else {
                Output.record(PathBytes(resolution.path).bytes, terminator: terminator)
            }
            if strict && resolution.isStale { throw ExitStatus.stale.exitCode }
        case .failed(let status, let failure):
            if json { try? Output.json(failure) }
            throw status.exitCode
        case .failedLater(let error, let path):
            if json { try? Output.json(ResolveFailureJSON(error)) }
            throw Output.fail(error, path: path.escaped).exitCode
        }
    }

    /// Many: plain resolutions share one batch (one walk per volume); one record per input,
    /// in input order.
    func runMany(_ inputs: [PathBytes]) throws {
        guard refresh else { return try Output.buffered { try printMany(inputs) } }
        // --refresh: leftovers swept once per folder, each folder synced once before the records
        // naming its rewritten files leave (RewrittenFolders), as `refresh` does.
        var run = self
        let folders = RewrittenFolders()
        run.folders = folders
        var worst = ExitStatus.success
        do {
            try folders.during { try run.printMany(inputs) }
        } catch let code as ExitCode {
            worst = ExitStatus(rawValue: code.rawValue) ?? .failure
        }
        // A folder that could not be synced fails the run too (its files may not survive a crash).
        if folders.reportFailure() { worst = ExitStatus.mostSevere([worst, .failure]) }
        if worst != .success { throw worst.exitCode }
    }

    /// ``runMany(_:)``'s work, its records held back by the caller.
    private func printMany(_ inputs: [PathBytes]) throws {
        let progress = BatchProgressLine(verb: "resolving", total: inputs.count)
        defer { progress.finish() }
        var outcomes = [ResolveOutcome?](repeating: nil, count: inputs.count)
        var pending: [(index: Int, bookmark: Bookmark)] = []
        for (index, source) in inputs.enumerated() {
            progress.update(done: index, total: inputs.count)
            switch SourceInput.decode(source, volumeTimeout: volumeTimeout) {
            case .success(let (decoded, raw)):
                if refresh || keyFile != nil {
                    outcomes[index] = resolveOne(source, decoded: decoded, raw: raw)
                } else {
                    pending.append((index, Bookmark(record: decoded.record)))
                }
            case .failure(let status):
                outcomes[index] = .failed(status, ResolveFailureJSON(status: status))
            }
            if !keepGoing, case .failed = outcomes[index] { break }
        }
        if !pending.isEmpty {
            let total = inputs.count
            let before = total - pending.count
            let results = Bookmark.resolveAll(pending.map(\.bookmark), options: options) { step in
                progress.update(
                    done: before + step.settled, total: total,
                    volume: step.volume.map { PathBytes($0).escaped }, force: true)
            }
            for (item, result) in zip(pending, results) {
                switch result {
                case .success(let resolution): outcomes[item.index] = .resolved(resolution, refreshed: false, readOnly: nil)
                case .failure(let error): outcomes[item.index] = .failedLater(error, inputs[item.index])
                }
            }
        }
        progress.finish()
        var statuses: [ExitStatus] = []
        for (index, source) in inputs.enumerated() {
            guard var outcome = outcomes[index], Output.stdoutFailure == nil else { break }
            if case .failedLater(let error, let path) = outcome {
                // Said on stderr here, so that messages come in input order.
                outcome = .failed(Output.fail(error, path: path.escaped), ResolveFailureJSON(error))
            }
            var status = ExitStatus.success
            switch outcome {
            case .resolved(let resolution, let refreshed, let readOnly, let notRefreshed):
                if strict && resolution.isStale { status = .stale }
                if json {
                    try Output.jsonLine(ResolveRecordJSON.resolved(
                        resolution, refreshed: refreshed, readOnly: readOnly, notRefreshed: notRefreshed, source: source,
                        status: status))
                } else {
                    Output.record(PathBytes(resolution.path).bytes, terminator: terminator)
                }
            case .failed(let failed, let failure):
                status = failed
                if json {
                    try Output.jsonLine(ResolveRecordJSON.failed(failure, status: failed, source: source))
                } else {
                    Output.record([], terminator: terminator)
                }
            case .failedLater: break
            }
            statuses.append(status)
            // A stale input under --strict resolved: it does not stop the batch, it only sets
            // the exit status (Docs/CLI.md).
            if status != .success && status != .stale && !keepGoing { break }
        }
        let worst = ExitStatus.mostSevere(statuses)
        if worst != .success { throw worst.exitCode }
    }

    /// `--stored`: each SOURCE a library file, every bookmark in it resolved in one batch
    /// (`Bookmark.resolveAll(storedIn:)`); one record per bookmark, in file order, with the
    /// SOURCE and the bookmark's place in it (`record`, from 0) in JSON. A SOURCE that cannot be
    /// read, or whose framing breaks, is one failed record (66 or 5), as in a batch of files.
    func runStored(_ inputs: [PathBytes]) throws {
        try Output.buffered { try printStored(inputs) }
    }

    /// ``runStored(_:)``'s work, its records held back by the caller.
    private func printStored(_ inputs: [PathBytes]) throws {
        var statuses: [ExitStatus] = []
        sources: for source in inputs {
            if Output.stdoutFailure != nil { break }  // the records would be lost
            let results: [Result<Resolution, BookmarkError>]
            var refreshed: Set<Int> = []
            var notRefreshed: [Int: BookmarkError] = [:]
            switch storedResults(source) {
            case .success(let outcome):
                results = outcome.results
                refreshed = Set(outcome.refreshed)
                notRefreshed = outcome.notRefreshed
            case .failure(let failed):
                // The SOURCE itself: one record in JSON (no `record`), nothing on plain stdout.
                if json { try Output.jsonLine(ResolveRecordJSON.failed(failed.json, status: failed.status, source: source)) }
                statuses.append(failed.status)
                if keepGoing { continue sources } else { break sources }
            }
            for (index, result) in results.enumerated() {
                if Output.stdoutFailure != nil { break sources }
                var status = ExitStatus.success
                var record: ResolveRecordJSON
                switch result {
                case .success(let resolution):
                    if !json { Output.record(PathBytes(resolution.path).bytes, terminator: terminator) }
                    if strict && resolution.isStale { status = .stale }
                    // Resolved, but its fresh data could not be made: said, and it counts as failed.
                    if let error = notRefreshed[index] {
                        status = Output.fail(error, path: "\(source.escaped) (bookmark \(index), not refreshed)")
                    }
                    record = .resolved(
                        resolution, refreshed: refreshed.contains(index), readOnly: nil, source: source, status: status)
                case .failure(let error):
                    status = Output.fail(error, path: "\(source.escaped) (bookmark \(index))")
                    record = .failed(ResolveFailureJSON(error), status: status, source: source)
                    if !json { Output.record([], terminator: terminator) }
                }
                if json {
                    record.record = index
                    try Output.jsonLine(record)
                }
                statuses.append(status)
                if status != .success && status != .stale && !keepGoing { break sources }
            }
        }
        let worst = ExitStatus.mostSevere(statuses)
        if worst != .success { throw worst.exitCode }
    }

    /// Every bookmark of one library file resolved (and with `--refresh` the stale ones rewritten:
    /// `Bookmark.refreshAll(storedIn:)`), or why the file could not be (said on stderr).
    private func storedResults(_ source: PathBytes) -> Result<StoredRefresh, StoredFailure> {
        if let status = SourceInput.checkStored(source, volumeTimeout: volumeTimeout) {
            return .failure(StoredFailure(status: status, json: ResolveFailureJSON(status: status)))
        }
        do {
            if refresh { return .success(try Bookmark.refreshAll(storedIn: source.filePath, options: options)) }
            let results = try Bookmark.resolveAll(storedIn: source.filePath, options: options)
            return .success(StoredRefresh(results: results))
        } catch {
            return .failure(StoredFailure(status: Output.fail(error, path: source.escaped), json: ResolveFailureJSON(error)))
        }
    }

    /// A library file that could not be read or split: its exit status and its JSON record.
    struct StoredFailure: Error {
        var status: ExitStatus
        var json: ResolveFailureJSON
    }

    /// Resolves one decoded SOURCE (with `--verify`, `--refresh` or neither).
    func resolveOne(_ source: PathBytes, decoded: BookmarkSource, raw: [UInt8]) -> ResolveOutcome {
        if let keyFile {
            return Signing.resolveVerified(
                raw: raw, decoded: decoded, keyFile: keyFile, within: within, source: source, options: options)
        }
        do {
            if refresh { return try refreshOne(source, decoded: decoded) }
            return .resolved(try Bookmark(record: decoded.record).resolve(options), refreshed: false, readOnly: nil)
        } catch {
            return .failed(Output.fail(error, path: source.escaped), ResolveFailureJSON(error))
        }
    }

    /// `--refresh` of one SOURCE: resolves, and when stale rewrites SOURCE atomically in its own
    /// container with unknown keys (and an alias file's Finder info) kept. A SOURCE that cannot
    /// be rewritten (a symbolic link, which is never written through; a folder the user cannot
    /// write; a full disk) does not hide the resolution: the path is printed, JSON says
    /// `refreshed: false` and `notRefreshed` why, stderr says it, and the exit status stays the
    /// resolution's (Docs/CLI.md, "resolve --refresh").
    private func refreshOne(_ source: PathBytes, decoded: BookmarkSource) throws(BookmarkError) -> ResolveOutcome {
        // A link is refused by the rewrite before anything is resolved: resolve what it holds.
        if let status = try? Directory.current.status(of: source.filePath), status.kind == .symlink {
            let resolution = try Bookmark(record: decoded.record).resolve(options)
            guard resolution.isStale else { return .resolved(resolution, refreshed: false, readOnly: nil) }
            return notRefreshed(
                resolution, source: source,
                why: "it is a symbolic link, which --refresh does not rewrite (nor write through); "
                    + "give the file it points to (readlink -f prints it)")
        }
        let deferred = folders?.defersSync(for: source) ?? false
        do throws(BookmarkError) {
            let outcome = try Bookmark.refreshFile(at: source.filePath, options: options, syncingDirectory: !deferred)
            if deferred && outcome.rewritten { folders?.wrote(source) }
            return .resolved(outcome.resolution, refreshed: outcome.rewritten, readOnly: nil)
        } catch {
            // An error about the SOURCE itself (reading it again, or replacing it) carries its
            // path as `lastKnownPath`; one from resolving carries the bookmarked file's. Only the
            // first is resolved once more (a failed resolution is not searched twice), and its
            // path is never reported as the bookmarked file's last known path.
            guard error.lastKnownPath == PathBytes(source.filePath).bytes else { throw error }
            let resolution = try Bookmark(record: decoded.record).resolve(options)
            guard resolution.isStale else { return .resolved(resolution, refreshed: false, readOnly: nil) }
            return notRefreshed(resolution, source: source, why: "cannot replace it: " + Output.reason(error))
        }
    }

    /// A stale resolution whose SOURCE was not rewritten: said on stderr, and the reason kept for JSON.
    private func notRefreshed(_ resolution: Resolution, source: PathBytes, why: String) -> ResolveOutcome {
        Output.error("\(source.escaped): not refreshed (it stays stale; the file was found all the same): \(why)")
        return .resolved(resolution, refreshed: false, readOnly: nil, notRefreshed: why)
    }
}

/// What one input of `bookmark resolve` came to.
enum ResolveOutcome {
    /// Resolved; `readOnly` is set for a verified (signed) bookmark, `notRefreshed` (why) for a
    /// stale SOURCE that `--refresh` could not rewrite.
    case resolved(Resolution, refreshed: Bool, readOnly: Bool?, notRefreshed: String? = nil)
    /// Failed with this exit status (already said on stderr), and this JSON for it.
    case failed(ExitStatus, any Encodable)
    /// Failed in the batch; said on stderr when its record is printed.
    case failedLater(BookmarkError, PathBytes)
}

/// A record of `resolve --json`: the resolution (or the failure) and, in a batch, the SOURCE it
/// came from and its exit status.
struct ResolveRecordJSON: Encodable {
    var payload: any Encodable
    var source: PathBytes?
    var status: ExitStatus?
    var readOnly: Bool?
    /// With `--stored`: the bookmark's place in its SOURCE, from 0.
    var record: Int?

    /// A resolved input; in a batch (`source` given) its `exitStatus` is `status`: 0, or 10 for
    /// a stale one under `--strict`.
    static func resolved(
        _ resolution: Resolution, refreshed: Bool, readOnly: Bool?, notRefreshed: String? = nil, source: PathBytes? = nil,
        status: ExitStatus = .success
    ) -> Self {
        ResolveRecordJSON(
            payload: ResolveJSON(resolution, refreshed: refreshed, notRefreshed: notRefreshed), source: source,
            status: source == nil ? nil : status, readOnly: readOnly)
    }

    static func failed(_ failure: any Encodable, status: ExitStatus, source: PathBytes) -> Self {
        ResolveRecordJSON(payload: failure, source: source, status: status, readOnly: nil)
    }

    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        if let source {
            try container.encode(JSONPath.text(source.bytes), forKey: .source)
            try container.encodeIfPresent(JSONPath.base64(source.bytes), forKey: .sourceBase64)
        }
        if let status { try container.encode(status.rawValue, forKey: .exitStatus) }
        try container.encodeIfPresent(record, forKey: .record)
        if let readOnly {
            try container.encode(true, forKey: .verified)
            try container.encode(readOnly, forKey: .readOnly)
        }
    }

    enum Keys: String, CodingKey { case source, sourceBase64, exitStatus, verified, readOnly, record }
}

func escapedPath(_ bytes: [UInt8]) -> String { PathBytes(bytes).escaped }

struct ResolveJSON: Encodable {
    struct VolumeInfo: Encodable {
        var uuid: String?
        var uuidSource: String
        var mountPoint: String
        var mountPointBase64: String?
        var persistent: Bool
    }
    var path: String
    var pathBase64: String?
    var stale: Bool
    var matchedBy: String
    var changes: [String]
    var inTrash: Bool
    var volume: VolumeInfo
    var entriesSearched: Int
    var notes: [String]
    var refreshed: Bool
    /// With `--refresh`: why a stale SOURCE was not rewritten (absent when it was, or was fresh).
    var notRefreshed: String?

    init(_ resolution: Resolution, refreshed: Bool, notRefreshed: String? = nil) {
        let bytes = PathBytes(resolution.path).bytes
        path = JSONPath.text(bytes)
        pathBase64 = JSONPath.base64(bytes)
        stale = resolution.isStale
        matchedBy = resolution.matchedBy.rawValue
        changes = Change.ordered(resolution.changes).map(\.rawValue)
        inTrash = resolution.isInTrash
        volume = VolumeInfo(
            uuid: resolution.volume.uuid, uuidSource: resolution.volume.uuidSource.rawValue,
            mountPoint: JSONPath.text(resolution.volume.mountPoint),
            mountPointBase64: JSONPath.base64(resolution.volume.mountPoint), persistent: resolution.volume.isPersistent)
        entriesSearched = resolution.entriesSearched
        notes = resolution.notes
        self.refreshed = refreshed
        self.notRefreshed = notRefreshed
    }
}

struct ResolveFailureJSON: Encodable {
    var error: String
    var message: String
    var lastKnownPath: String?
    var lastKnownPathBase64: String?
    var volumeName: String?
    var volumeUUID: String?
    var attachedDevice: String?
    var lastCatalogued: LastCataloguedJSON?
    /// `true` when the search ran out of its budget: the object was not looked for everywhere, so
    /// a `notFound` must not be taken for "deleted" (absent otherwise).
    var searchExhausted: Bool?

    init(_ error: any Error) {
        if let error = error as? BookmarkError {
            self.error = error.code.rawValue
            message = error.message
            lastKnownPath = error.lastKnownPath.map(JSONPath.text)
            lastKnownPathBase64 = error.lastKnownPath.flatMap(JSONPath.base64)
            volumeName = error.volumeName
            volumeUUID = error.volumeUUID
            attachedDevice = error.attachedDevice
            lastCatalogued = error.lastSighting.map(LastCataloguedJSON.init)
            searchExhausted = error.searchExhausted ? true : nil
        } else {
            self.error = "failure"
            message = String(describing: error)
        }
    }

    /// A SOURCE that could not be read or decoded (its message is on stderr).
    init(status: ExitStatus) {
        error = status.name
        message = status.meaning
    }
}

/// Where a catalog last saw the object (`lastCatalogued` in a failure's JSON).
struct LastCataloguedJSON: Encodable {
    var path: String
    var pathBase64: String?
    var seen: String
    var volumeLabel: String?
    var catalog: String

    init(_ sighting: LastSighting) {
        path = JSONPath.text(sighting.path)
        pathBase64 = JSONPath.base64(sighting.path)
        seen = ExportText.iso8601Seconds(sighting.seen)
        volumeLabel = sighting.volumeLabel
        catalog = sighting.source
    }
}
