// BookmarkFormat: a small JSON tree with deterministic (sorted-key) output.

/// A JSON value, serialised with sorted object keys so output is stable byte for byte.
public indirect enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer (for 64-bit flag words).
    case uint(UInt64)
    /// A floating-point number (non-finite values are written as strings).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; keys are sorted when written.
    case object([String: JSONValue])

    /// The serialised text, pretty-printed with two-space indentation when `pretty`.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(into: &out, indent: pretty ? 0 : nil)
        return out
    }

    private func write(into out: inout String, indent: Int?) {
        let nl = indent != nil ? "\n" : ""
        func pad(_ n: Int?) -> String { String(repeating: "  ", count: n ?? 0) }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .uint(let u): out += String(u)
        case .double(let d):
            if d.isFinite {
                if abs(d) < 1e15, d == Double(Int64(d)) { out += String(Int64(d)) + ".0" } else { out += "\(d)" }
            } else {
                JSONValue.string("\(d)").write(into: &out, indent: indent)
            }
        case .string(let s): JSONValue.escape(s, into: &out)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, v) in a.enumerated() {
                out += pad(indent.map { $0 + 1 })
                v.write(into: &out, indent: indent.map { $0 + 1 })
                out += (i + 1 < a.count ? "," : "") + nl
            }
            out += pad(indent) + "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{" + nl
            let keys = o.keys.sorted()
            for (i, k) in keys.enumerated() {
                out += pad(indent.map { $0 + 1 })
                JSONValue.escape(k, into: &out)
                out += indent != nil ? ": " : ":"
                o[k]?.write(into: &out, indent: indent.map { $0 + 1 })
                out += (i + 1 < keys.count ? "," : "") + nl
            }
            out += pad(indent) + "}"
        }
    }

    private static func escape(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + hex2(UInt8(scalar.value))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
