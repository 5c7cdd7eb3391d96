// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import Foundation
import Glibc
import SecureFiles

/// `bookmark catalog scan ROOT… [-o CATALOG]`.
struct CatalogScan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Record every entry under each ROOT in a catalog, or update a catalogued ROOT in place.",
        discussion: """
            Stays on each ROOT's file system unless --cross-mounts (each entry is recorded under \
            the volume it is on); follows no symbolic link. \
            Unreadable entries are recorded as errors in the catalog, not fatal: the summary lists \
            the first 10 on stderr (path, syscall, errno), and --json lists them all under \
            "unreadable". A re-scan matches \
            entries by identity (inode, generation, birth time), so renames and moves are recorded \
            as such; `bookmark catalog diff CATALOG` shows them. An interrupted scan leaves the \
            catalog as of its last batch; scanning the ROOT again finishes it. Progress goes to \
            stderr when it is a terminal. Exits 0, 66 when a ROOT cannot be opened, 1 when the catalog \
            cannot be written (the disk full).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Directories to scan.")
    var roots: [String]

    @Option(name: [.customShort("o"), .customLong("output")], help: "The catalog file (created when missing).")
    var output: String?

    @Flag(name: .customLong("hash"), help: "Record SHA-256 of files whose size another file shares.")
    var hash = false

    @Flag(name: .customLong("cross-mounts"), help: "Descend into file systems mounted under a ROOT.")
    var crossMounts = false

    @Flag(name: .customLong("no-generations"), help: "Do not read inode generations (one call fewer per entry).")
    var noGenerations = false

    @Option(name: .customLong("batch-size"), help: "Entries per transaction (default 5000): what a killed scan can lose.")
    var batchSize: Int = 5_000

    func validate() throws {
        guard !roots.isEmpty else { throw ValidationError("give at least one ROOT") }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let path = try output.map(CatalogLocation.path) ?? CatalogLocation.defaultPath
        if output == nil {
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        let catalog: BookmarkCatalog.Catalog
        do {
            catalog = try BookmarkCatalog.Catalog(path: path)
        } catch {
            Output.error(error.description)
            // 1 for a catalog that is there but cannot be written (the disk full), 66 for one
            // that cannot be opened or is not a catalog.
            throw CatalogLocation.exitStatus(for: error).exitCode
        }
        let options = ScanOptions(hashing: hash, crossingMounts: crossMounts, generations: !noGenerations, batchSize: batchSize)
        let showsProgress = isatty(STDERR_FILENO) == 1 && !global.json
        var summaries: [ScanSummaryJSON] = []
        var failed: ExitStatus?
        for root in roots {
            let progress: (@Sendable (ScanProgress) -> Void)? = showsProgress ? CatalogScan.showProgress : nil
            do {
                let summary = try catalog.scan(rootBytes: RawArguments.bytes(of: root), options: options, progress: progress)
                if showsProgress { Output.write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO) }
                // A cloned drive beside its original: one volume to the catalog (same UUID and inodes).
                for other in summary.sameUUIDMountedAt {
                    Output.error(
                        "warning: volume UUID of \(PathBytes(summary.root).escaped) is mounted at two places at once: also at "
                            + "\(PathBytes(other).escaped), from another device (a cloned drive?): the catalog cannot tell them apart "
                            + "and merges what it finds on them; give the clone a new UUID (CATALOG.md, \"Where identity matching cannot work\")")
                }
                // The summary only counts them; the catalog has the paths (scan_error).
                let unreadable = summary.errors > 0 ? try catalog.errors(inScan: summary.scanID) : []
                if global.json {
                    summaries.append(ScanSummaryJSON(summary, unreadable: unreadable))
                } else {
                    var line = Array("scanned ".utf8) + summary.root
                    line += Array(": \(summary.entries) entries, \(summary.errors) errors".utf8)
                    if summary.isRescan {
                        line += Array(
                            "; \(summary.added) added, \(summary.modified) modified, \(summary.moved) moved, \(summary.deleted) deleted".utf8)
                    }
                    if summary.resumed { line += Array(" (finished an interrupted scan)".utf8) }
                    if options.hashing { line += Array("; \(summary.hashed) hashed".utf8) }
                    Output.record(line)
                    CatalogScan.listUnreadable(unreadable)
                }
            } catch {
                if showsProgress { Output.write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO) }
                Output.error("\(RawArguments.display(root)): \(error.description)")
                // 66 for a ROOT that cannot be opened, 1 for a catalog that cannot be written (the
                // disk full; it was 66, as if the ROOT were missing). The first failure's.
                failed = failed ?? CatalogLocation.exitStatus(for: error)
            }
        }
        if global.json { try Output.json(summaries) }
        if let failed { throw failed.exitCode }
    }
}

extension CatalogScan {
    /// How many unreadable paths the text summary lists (`--json` lists all).
    static let unreadableListed = 10

    /// The paths a scan could not read, on stderr, after its summary: `cannot read PATH: SYSCALL:
    /// REASON (errno N)`, the first ``unreadableListed`` of them.
    static func listUnreadable(_ errors: [CatalogScanError]) {
        for error in errors.prefix(unreadableListed) {
            Output.error("cannot read \(PathBytes(error.path).escaped): \(error.syscall): \(String(cString: strerror(error.errno))) (errno \(error.errno))")
        }
        if errors.count > unreadableListed {
            Output.error("… and \(errors.count - unreadableListed) more unreadable (--json lists them all)")
        }
    }

    /// One status line on stderr, rewritten in place.
    @Sendable static func showProgress(_ progress: ScanProgress) {
        let text = "\r\u{1B}[K\(progress.entries) entries, \(progress.directories) folders, \(progress.errors) errors"
        Output.write(Array(text.utf8), to: STDERR_FILENO)
    }
}

/// `scan --json`: one object per ROOT.
struct ScanSummaryJSON: Encodable {
    var scanID: Int64
    var root: String
    var rootBase64: String?
    var resumed: Bool
    var rescan: Bool
    var entries: Int
    var errors: Int
    var added: Int
    var modified: Int
    var moved: Int
    var deleted: Int
    var hashed: Int
    /// Every path the scan could not read (`errors` counts them).
    var unreadable: [UnreadableJSON]
    /// Other mount points of a device with the same volume UUID (a clone): a warning.
    var sameUUIDMountedAt: [String]

    init(_ summary: ScanSummary, unreadable: [CatalogScanError]) {
        scanID = summary.scanID
        root = JSONPath.text(summary.root)
        rootBase64 = JSONPath.base64(summary.root)
        resumed = summary.resumed
        rescan = summary.isRescan
        entries = summary.entries
        errors = summary.errors
        added = summary.added
        modified = summary.modified
        moved = summary.moved
        deleted = summary.deleted
        hashed = summary.hashed
        self.unreadable = unreadable.map(UnreadableJSON.init)
        sameUUIDMountedAt = summary.sameUUIDMountedAt.map(JSONPath.text)
    }
}

/// `scan --json`: one path the scan could not read.
struct UnreadableJSON: Encodable {
    var path: String
    var pathBase64: String?
    var syscall: String
    var errno: Int32

    init(_ error: CatalogScanError) {
        path = JSONPath.text(error.path)
        pathBase64 = JSONPath.base64(error.path)
        syscall = error.syscall
        errno = error.errno
    }
}
