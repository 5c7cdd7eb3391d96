// SPDX-License-Identifier: Apache-2.0
import SecureFiles

/// The secure layer's refusals in plain words. A refusal (a ``SecurityViolation``) is a policy
/// decision, not a failed call: SecureFiles gives it the nearest errno for programs (`EINVAL` for a
/// symlink, `EACCES` for a mode), and its description reads like a syscall failure ("'statx' failed
/// on 'k1.key': Permission denied (errno 13, rejected)"), which sends a person looking for a
/// permission problem that is not there. Here it says what was refused and why, and what to do.
enum Refusal {
    /// What the command was doing with the file refused, which decides the advice.
    enum Use {
        /// Any use: a failure reported without knowing whether the file was read or written.
        case any
        /// Writing an output file, or rewriting a SOURCE.
        case writing
        /// Reading a signing key, a secret.
        case secret
    }

    /// `PATH: refused: why` for a refusal, or `nil` when `error` is a plain failed call. The path
    /// refused is left out when it is `shown`, the path the caller puts before the message.
    static func message(_ error: FileSystemError, shown: String?, use: Use) -> String? {
        guard let violation = error.violation else { return nil }
        let path = error.path.map { PathBytes($0).escaped }
        let subject = path.flatMap { $0 == shown ? nil : "\($0): " } ?? ""
        return subject + "refused: " + why(violation, use: use)
    }

    /// Why `violation` was refused, and what would be accepted.
    static func why(_ violation: SecurityViolation, use: Use) -> String {
        switch violation {
        case .notRegular(let kind):
            var rule: String
            switch use {
            case .any: rule = "bookmark uses only regular files here"
            case .writing: rule = "bookmark writes only regular files"
            case .secret: rule = "a signing key must be a regular file"
            }
            if kind == .symlink { rule += use == .writing ? ", and neither follows nor replaces a link" : ", and does not follow a link" }
            return "it is \(SourceInput.phrase(for: kind)), not a regular file; " + rule
        case .fileAccessibleByOthers(let mode):
            let secret = use == .secret ? "a signing key" : "a secret"
            return "its mode is \(octal(mode)), and \(secret) must be readable and writable by its owner alone (chmod 600)"
        case .fileWritableByOthers(let mode):
            return "its mode is \(octal(mode)), so group or others may write it (chmod go-w)"
        case .directoryWritableByOthers(let mode):
            return "its folder's mode is \(octal(mode)), so group or others may replace it (chmod go-w on the folder)"
        case .owner(let uid):
            return "it is owned by uid \(uid), which is neither you nor root"
        case .linkCount(let count):
            return "it has \(count) hard links, and must have exactly 1 (another name could change it)"
        case .escape:
            return "the path leads outside the folder it must stay in"
        case .magicLink:
            return "a /proc magic link is on the path"
        case .caseCollision(let existing, let requested):
            return "'\(PathBytes(requested).escaped)' is the existing name '\(PathBytes(existing).escaped)' in this folder, "
                + "which ignores case"
        case .identityChanged:
            return "it was renamed or replaced while it was being opened; try again"
        case .invalidName(let name):
            return "'\(PathBytes(name).escaped)' is not a single file name"
        case .modeOutOfRange(let mode):
            return "mode \(octal(mode)) has bits that are not allowed here (setuid, setgid or sticky)"
        }
    }

    /// A mode as `chmod` takes it: `0644`.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
