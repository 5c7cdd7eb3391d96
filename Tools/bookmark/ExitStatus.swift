// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation

/// The one table of exit codes of the `bookmark` command. Every subcommand exits through it.
enum ExitStatus: Int32, CaseIterable, Error {
    /// Done (a stale bookmark still resolves with 0 unless `--strict`).
    case success = 0
    /// Any failure without a more specific code.
    case failure = 1
    /// The file (or bookmark target) does not exist.
    case notFound = 3
    /// The volume the file lives on is not mounted.
    case volumeNotMounted = 4
    /// The input is unreadable or corrupt (bookmark bytes, alias file, base64).
    case corruptData = 5
    /// The signature is missing, wrong or made with another key.
    case signatureInvalid = 6
    /// Resolved, but stale (only with `--strict`).
    case stale = 10
    /// The operation was not permitted.
    case permissionDenied = 13
    /// Bad command line.
    case usage = 64
    /// A SOURCE (bookmark or alias file) that cannot be opened: missing, unreadable, a dangling
    /// symlink. Distinct from `notFound`, which is about the bookmarked object (sysexits' EX_NOINPUT).
    case sourceUnreadable = 66
    /// A FUSE or network volume did not answer within `--volume-timeout` (sysexits' EX_TEMPFAIL:
    /// trying again later may work). Distinct from `volumeNotMounted`: the volume is mounted.
    case volumeNotResponding = 75

    /// What each code means, one line each.
    var meaning: String {
        switch self {
        case .success: return "success (a stale bookmark that resolved, unless --strict)"
        case .failure: return "failure without a more specific code"
        case .notFound: return "not found"
        case .volumeNotMounted: return "volume not mounted"
        case .corruptData: return "unreadable or corrupt data (also a SOURCE that is too large, a FIFO, a device or a directory)"
        case .signatureInvalid: return "signature missing, tampered or made with another key"
        case .stale: return "resolved but stale (--strict)"
        case .permissionDenied: return "permission denied"
        case .usage: return "usage error"
        case .sourceUnreadable: return "a SOURCE or key file cannot be opened (missing, no permission)"
        case .volumeNotResponding: return "a FUSE or network volume did not respond within --volume-timeout"
        }
    }

    /// The case's name, as JSON's `error` field gives it for a failure found by the command itself.
    var name: String {
        switch self {
        case .success: return "success"
        case .failure: return "failure"
        case .notFound: return "notFound"
        case .volumeNotMounted: return "volumeNotMounted"
        case .corruptData: return "corruptData"
        case .signatureInvalid: return "signatureInvalid"
        case .stale: return "stale"
        case .permissionDenied: return "permissionDenied"
        case .usage: return "usage"
        case .sourceUnreadable: return "sourceUnreadable"
        case .volumeNotResponding: return "volumeNotResponding"
        }
    }

    /// The table for `--help`.
    static var helpTable: String {
        "Exit codes:\n" + allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0))\($0.meaning)" }
            .joined(separator: "\n")
    }

    /// The `ExitCode` to throw.
    var exitCode: ExitCode { ExitCode(rawValue) }
}
