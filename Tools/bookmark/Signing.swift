// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkFormat
import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage

/// `make --sign` and `resolve --verify`: signed (security-scoped) bookmarks.
enum Signing {
    /// The key at `keyFile`, created (mode 0600) when missing; exit 6 when it is refused.
    static func loadOrCreateKey(_ keyFile: String) throws -> (key: SigningKey, created: Bool) {
        switch Result(catching: { () throws(SecurityScopeError) -> (key: SigningKey, created: Bool) in
            try SigningKey.loadOrCreate(at: RawArguments.filePath(keyFile))
        }) {
        case .success(let loaded): return loaded
        case .failure(let error): throw keyFailure(error, keyFile: keyFile).exitCode
        }
    }

    /// Says on stderr why the key file cannot be used, naming it, and returns the exit status: 66
    /// when it cannot be opened (missing, no permission: a file problem, as for a SOURCE), else 6
    /// (refused for its mode, owner or kind, said in plain words with what to do; or malformed).
    /// A missing key said `keyRejected` with exit 6, which reads like a tampered signature.
    static func keyFailure(_ error: SecurityScopeError, keyFile: String) -> ExitStatus {
        let shown = RawArguments.display(keyFile)
        if let cause = error.fileSystemError, let refused = Refusal.message(cause, shown: shown, use: .secret) {
            Output.error("\(shown): \(refused)")
        } else if let cause = error.fileSystemError {
            Output.error("\(shown): cannot read the key file: \(cause.errno) (errno \(cause.errno.rawValue))")
            return .sourceUnreadable
        } else {
            Output.error("\(shown): \(error.description)")
        }
        return .signatureInvalid
    }

    /// The exit status for a refusal.
    static func status(_ error: SecurityScopeError, source: String, keyFile: String) -> ExitStatus {
        switch error.code {
        case .keyRejected:
            return keyFailure(error, keyFile: keyFile)
        case .unsigned, .tampered, .signatureMismatch:
            Output.error("\(source): \(error.description)")
            return .signatureInvalid
        case .outsideScope, .readOnlyScope:
            Output.error("\(source): \(error.description)")
            return .permissionDenied
        case .resolution:
            if let underlying = error.bookmarkError { return Output.fail(underlying, path: source) }
            Output.error("\(source): \(error.description)")
            return .failure
        }
    }

    /// Verifies, resolves and confines: what `resolve --verify` came to for one input. Messages
    /// go to stderr here; the caller prints the record.
    static func resolveVerified(
        raw: [UInt8], decoded: BookmarkSource, keyFile: String, within: [String], source: PathBytes,
        options: ResolutionOptions
    ) -> ResolveOutcome {
        var data = raw
        if decoded.wasBase64 {
            guard let bytes = Data(base64Encoded: String(decoding: raw, as: UTF8.self), options: .ignoreUnknownCharacters)
            else {
                Output.error("\(source.escaped): corrupt base64")
                return .failed(.corruptData, SignatureFailureJSON(error: "corruptData", message: "corrupt base64"))
            }
            data = Array(bytes)
        }
        let result = Result(catching: { () throws(SecurityScopeError) -> ScopedResolution in
            let key = try SigningKey.load(from: RawArguments.filePath(keyFile))
            return try key.resolve(data, confinedTo: within.map(RawArguments.filePath), options: options)
        })
        switch result {
        case .success(let scoped):
            return .resolved(scoped.resolution, refreshed: false, readOnly: scoped.readOnly)
        case .failure(let error):
            return .failed(
                status(error, source: source.escaped, keyFile: keyFile),
                SignatureFailureJSON(error: error.code.rawValue, message: error.message))
        }
    }
}

struct SignatureFailureJSON: Encodable {
    var error: String
    var message: String
}
