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
            try SigningKey.loadOrCreate(at: FilePath(keyFile))
        }) {
        case .success(let loaded): return loaded
        case .failure(let error):
            Output.error("\(keyFile): \(error.description)")
            throw ExitStatus.signatureInvalid.exitCode
        }
    }

    /// The exit status for a refusal.
    static func status(_ error: SecurityScopeError, source: String) -> ExitStatus {
        switch error.code {
        case .unsigned, .tampered, .signatureMismatch, .keyRejected:
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

    /// Verifies, resolves and confines; prints like `resolve`, with `readOnly` added.
    static func resolveVerified(
        raw: [UInt8], decoded: BookmarkSource, keyFile: String, within: [String], source: String, json: Bool,
        options: ResolutionOptions, strict: Bool
    ) throws {
        var data = raw
        if decoded.wasBase64 {
            guard let bytes = Data(base64Encoded: String(decoding: raw, as: UTF8.self), options: .ignoreUnknownCharacters)
            else {
                Output.error("\(source): corrupt base64")
                throw ExitStatus.corruptData.exitCode
            }
            data = Array(bytes)
        }
        let result = Result(catching: { () throws(SecurityScopeError) -> ScopedResolution in
            let key = try SigningKey.load(from: FilePath(keyFile))
            return try key.resolve(data, confinedTo: within.map { FilePath($0) }, options: options)
        })
        switch result {
        case .success(let scoped):
            if json {
                try Output.json(VerifiedResolveJSON(
                    resolution: ResolveJSON(scoped.resolution, refreshed: false), verified: true,
                    readOnly: scoped.readOnly))
            } else {
                Output.line(escapedPath(PathBytes(scoped.resolution.path).bytes))
            }
            if strict && scoped.resolution.isStale { throw ExitStatus.stale.exitCode }
        case .failure(let error):
            if json { try? Output.json(SignatureFailureJSON(error: error.code.rawValue, message: error.message)) }
            throw status(error, source: source).exitCode
        }
    }
}

struct VerifiedResolveJSON: Encodable {
    var resolution: ResolveJSON
    var verified: Bool
    var readOnly: Bool

    func encode(to encoder: any Encoder) throws {
        try resolution.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(verified, forKey: .verified)
        try container.encode(readOnly, forKey: .readOnly)
    }

    enum Keys: String, CodingKey { case verified, readOnly }
}

struct SignatureFailureJSON: Encodable {
    var error: String
    var message: String
}
