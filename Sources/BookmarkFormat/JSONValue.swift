// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: a small JSON tree with deterministic (sorted-key) output.

/// A JSON value, serialised with sorted object keys so output is stable byte for byte.
indirect enum JSONValue: Sendable, Hashable {
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
    func serialized(pretty: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(into: &out, indent: pretty ? 0 : nil)
        return String(decoding: out, as: UTF8.self)
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?) {
        guard let indent else { return }
        out.append(0x0A)
        for _ in 0..<indent { out.append(0x20); out.append(0x20) }
    }

    private func write(into out: inout [UInt8], indent: Int?) {
        let inner = indent.map { $0 + 1 }
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .uint(let u): out += Array(String(u).utf8)
        case .double(let d):
            if d.isFinite {
                if abs(d) < 1e15, d == Double(Int64(d)) {
                    out += Array((String(Int64(d)) + ".0").utf8)
                } else {
                    out += Array("\(d)".utf8)
                }
            } else {
                JSONValue.string("\(d)").write(into: &out, indent: indent)
            }
        case .string(let s): JSONValue.escape(s, into: &out)
        case .array(let a):
            if a.isEmpty { out += [0x5B, 0x5D]; return }
            out.append(0x5B)
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONValue.newline(&out, inner)
                v.write(into: &out, indent: inner)
            }
            JSONValue.newline(&out, indent)
            out.append(0x5D)
        case .object(let o):
            if o.isEmpty { out += [0x7B, 0x7D]; return }
            out.append(0x7B)
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONValue.newline(&out, inner)
                JSONValue.escape(k, into: &out)
                out.append(0x3A)
                if indent != nil { out.append(0x20) }
                o[k]?.write(into: &out, indent: inner)
            }
            JSONValue.newline(&out, indent)
            out.append(0x7D)
        }
    }

    private static func escape(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
