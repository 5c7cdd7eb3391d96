// SPDX-License-Identifier: Apache-2.0
import SystemPackage

// MARK: - Export as JSON lines (one object per record), without Foundation

extension AuditLog {
    /// The log as JSON lines: one object per record, in order, each ending with `\n`.
    ///
    /// Every object has `seq` and `level` (`intent`, `effect` or `policy`). Names are given twice:
    /// `name` as text (non-UTF-8 bytes escaped as `\xNN`, for people) and `nameHex` (lossless).
    /// Effects carry `call`, `fd`, `flags` (decoded names), `mode`, `resolve`, `dir` and `result`
    /// identities (`dev`, `ino`, `mode`, `uid`, `nlink`), and `ret` or `errno`/`injected`.
    public func jsonLines() -> String {
        records.map { JSONLine.encode($0) + "\n" }.joined()
    }
}

enum JSONLine {
    static func encode(_ record: AuditRecord) -> String {
        var fields: [(String, String)] = [("seq", String(record.sequence))]
        switch record.event {
        case .intent(let intent):
            fields.append(("level", string("intent")))
            fields.append(("operation", string(intent.operation)))
            fields += name("path", intent.path)
            for (key, value) in intent.details.sorted(by: { $0.key < $1.key }) { fields.append((key, string(value))) }
        case .effect(let effect):
            fields.append(("level", string("effect")))
            fields.append(("call", string(effect.call.name)))
            if let fd = effect.call.descriptor { fields.append(("fd", String(fd))) }
            if let path = effect.call.path { fields += name("name", path) }
            if effect.call.flags != nil { fields.append(("flags", array(effect.call.flagNames))) }
            if let mode = effect.call.mode { fields.append(("mode", string("0o" + String(mode, radix: 8)))) }
            if effect.call.resolve != nil { fields.append(("resolve", array(effect.call.resolveNames))) }
            if let fd = effect.call.secondDescriptor { fields.append(("fd2", String(fd))) }
            if let path = effect.call.secondPath { fields += name("name2", path) }
            if let identity = effect.identities.directory { fields.append(("dir", object(identity))) }
            if let identity = effect.identities.secondDirectory { fields.append(("dir2", object(identity))) }
            switch effect.outcome {
            case .returned(let value): fields.append(("ret", String(value)))
            case .failed(let errno): fields.append(("errno", string(errnoName(errno))))
            case .injected(let errno):
                fields.append(("errno", string(errnoName(errno))))
                fields.append(("injected", "true"))
            }
            if let identity = effect.identities.result { fields.append(("result", object(identity))) }
        case .policy(let event):
            fields.append(("level", string("policy")))
            fields.append(("event", string(event.kind)))
            switch event {
            case .rejected(let violation, let path):
                fields.append(("reason", string(violation.reason)))
                fields.append(("detail", string(violation.description)))
                fields += name("path", path)
            case .retriedEAGAIN(let attempt, let path):
                fields.append(("attempt", String(attempt)))
                fields += name("path", path)
            case .fellBack(let errno), .temporaryNameFallback(let errno):
                fields.append(("errno", string(errnoName(errno))))
            case .caseFoldingDetected(let folds, let method):
                fields.append(("folds", folds ? "true" : "false"))
                fields.append(("method", string(method)))
            case .created(let path, let identity):
                fields += name("path", path)
                fields.append(("identity", object(identity)))
            case .removedLeftover(let leftover):
                fields += name("name", leftover)
            }
        }
        return "{" + fields.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    static func name(_ key: String, _ bytes: [UInt8]) -> [(String, String)] {
        [(key, string(PathBytes.escape(bytes))), (key + "Hex", string(bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()))]
    }

    static func object(_ identity: ObjectIdentity) -> String {
        "{\"dev\":\(string(identity.device.description)),\"ino\":\(identity.inode),\"kind\":\(string(identity.kind.rawValue)),"
            + "\"mode\":\(string("0o" + String(identity.permissions, radix: 8))),\"uid\":\(identity.uid),\"nlink\":\(identity.linkCount)}"
    }

    static func array(_ values: [String]) -> String { "[" + values.map(string).joined(separator: ",") + "]" }

    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static let errnoNames: [CInt: String] = [
        1: "EPERM", 2: "ENOENT", 4: "EINTR", 5: "EIO", 9: "EBADF", 11: "EAGAIN", 13: "EACCES", 16: "EBUSY",
        17: "EEXIST", 18: "EXDEV", 20: "ENOTDIR", 21: "EISDIR", 22: "EINVAL", 25: "ENOTTY", 28: "ENOSPC",
        30: "EROFS", 36: "ENAMETOOLONG", 38: "ENOSYS", 39: "ENOTEMPTY", 40: "ELOOP", 61: "ENODATA",
        95: "EOPNOTSUPP", 116: "ESTALE",
    ]

    static func errnoName(_ errno: Errno) -> String { errnoNames[errno.rawValue] ?? "E\(errno.rawValue)" }
}
