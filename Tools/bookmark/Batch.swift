// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Glibc
import SecureFiles
import SystemPackage

/// Options of the subcommands that take many inputs (`make`, `resolve`, `values`, `id`, `refresh`).
struct BatchOptions: ParsableArguments {
    @Option(
        name: .customLong("files-from"),
        help: ArgumentHelp(
            "Also take inputs from this file, or - for standard input: one per line, or NUL-separated with -0.",
            valueName: "file"))
    var filesFrom: String?

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "Inputs from --files-from are NUL-separated, and output records are NUL-terminated.")
    var nul = false

    @Flag(
        name: .customLong("keep-going"),
        help: "After a failure go on with the remaining inputs (by default nothing after the first failure is done).")
    var keepGoing = false

    /// The byte that ends each output record.
    var terminator: UInt8 { nul ? 0 : 0x0A }

    /// Whether the output is a batch (one record per input, JSON Lines with `--json`) rather than
    /// the single-input form: more than one input, or any `--files-from`.
    func isBatch(_ positional: [String]) -> Bool { filesFrom != nil || positional.count > 1 }

    /// Every input, positional ones first, then those of `--files-from`, as exact bytes.
    func inputs(_ positional: [String]) throws -> [PathBytes] {
        var result = positional.map(RawArguments.path)
        if let filesFrom {
            let list = RawArguments.path(filesFrom)
            let bytes: [UInt8]
            switch ListInput.read(list) {
            case .success(let read): bytes = read
            case .failure(let status): throw status.exitCode
            }
            // A NUL in a line-separated list means the list was written with -0 and read without
            // it: every record would be cut at its first NUL by the kernel, silently naming
            // another file. Refuse the list instead.
            if !nul, bytes.contains(0) {
                Output.error("\(list.escaped): the list holds NUL bytes; give -0 to read a NUL-separated list")
                throw ExitStatus.usage.exitCode
            }
            // Empty records are skipped: no path is empty, and a trailing separator is usual.
            for (index, record) in bytes.split(separator: terminator, omittingEmptySubsequences: true).enumerated() {
                // A record `-` read a bookmark from standard input: with `--files-from -` that is
                // the list itself, already read; with a list file it waited on a terminal, or
                // took whatever a pipe held, as one input among many. A list names files, as
                // `find` writes them (`./-`), so the list is refused as a whole before anything
                // is done, as a NUL in a line-separated list is.
                if record.elementsEqual([UInt8(ascii: "-")]) {
                    Output.error("\(list.escaped): record \(index + 1) is '-', which is not read as standard input in a list; "
                        + "a file named '-' is written ./-")
                    throw ExitStatus.usage.exitCode
                }
                result.append(PathBytes(record))
            }
        }
        // An empty list is no work, not an error: `find … -print0 | bookmark make --files-from -`
        // that finds nothing succeeds with no output.
        return result
    }
}

/// Reading a `--files-from` list.
enum ListInput {
    /// Largest list read: 1 GiB (ten million long paths).
    static let limit = 1 << 30

    /// The whole list (`-` is standard input), or exit 66 when it cannot be opened.
    static func read(_ list: PathBytes) -> Result<[UInt8], ExitStatus> {
        if list != "-" {
            do throws(FileSystemError) {
                let opened = try Directory.current.open(list.filePath, options: [.readOnly])
                return .success(try opened.readToEnd(limit: limit))
            } catch {
                Output.error("\(list.escaped): cannot read the list: \(error)")
                return .failure(.sourceUnreadable)
            }
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                Output.error("-: cannot read the list: \(String(cString: strerror(errno)))")
                return .failure(.sourceUnreadable)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else {
                Output.error("-: the list exceeds \(limit) bytes")
                return .failure(.corruptData)
            }
        }
        return .success(bytes)
    }
}

/// The exit status of a batch: the most severe among its inputs' failures.
extension ExitStatus {
    /// Failures from most to least severe; a batch exits with the first of these that any input had.
    /// A wrong command line comes first, then data that must not be trusted, then problems with
    /// the inputs themselves, then objects that are gone, then conditions that may pass (an
    /// unmounted or silent volume), and a stale bookmark last: it still resolved.
    static let severity: [ExitStatus] = [
        .usage, .signatureInvalid, .corruptData, .permissionDenied, .failure, .sourceUnreadable, .notFound,
        .volumeNotMounted, .volumeNotResponding, .stale,
    ]

    /// The most severe of `statuses` by ``severity``, or `.success` when there is none.
    static func mostSevere(_ statuses: some Sequence<ExitStatus>) -> ExitStatus {
        var best: ExitStatus = .success
        var bestRank = Int.max
        for status in statuses where status != .success {
            let rank = severity.firstIndex(of: status) ?? 0
            if rank < bestRank {
                best = status
                bestRank = rank
            }
        }
        return best
    }
}

/// Progress of a long batch on stderr: only when stderr is a terminal, at most ten times a second,
/// on one line that is cleared at the end.
final class BatchProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private let verb: String
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var drawn = false
    private let lock = NSLock()

    /// A progress line for a batch of `total` inputs; silent unless stderr is a terminal and the
    /// batch has at least `minimum` inputs.
    init(verb: String, total: Int, minimum: Int = 100) {
        self.verb = verb
        enabled = isatty(STDERR_FILENO) == 1 && total >= minimum
    }

    /// Shows `done` of `total`, the rate so far, and the volume being worked on.
    func update(done: Int, total: Int, volume: String? = nil, force: Bool = false) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        let seconds = Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds)
        let rate = seconds > 0 ? Int(Double(done) / seconds) : 0
        var text = "\r\u{1B}[K\(verb) \(done)/\(total) (\(rate)/s)"
        if let volume { text += " on \(volume)" }
        Output.write(Array(text.utf8), to: STDERR_FILENO)
        drawn = true
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { Output.write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO) }
        drawn = false
    }
}
