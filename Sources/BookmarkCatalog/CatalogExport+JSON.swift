// SPDX-License-Identifier: Apache-2.0
import Foundation

/// JSON text written straight into the buffer: JSONEncoder would build every entry as a
/// dictionary first, and the HTML page needs escapes it does not make.
enum ExportJSONText {
    /// `text` as a JSON string. `htmlSafe` also writes `<`, `>` and `&` as `\u003c`, `\u003e`,
    /// `\u0026`, so the JSON can sit inside a `<script>` element: no `</script>` or `<!--` can
    /// appear in it. U+2028 and U+2029 are always escaped (older JavaScript parsers end a line there).
    static func string(_ text: String, htmlSafe: Bool = false, into output: inout ExportBuffer) {
        string(bytes: Array(text.utf8), htmlSafe: htmlSafe, into: &output)
    }

    /// ``string(_:htmlSafe:into:)`` of text given as UTF-8 bytes (the caller has checked them).
    static func string(bytes: [UInt8], htmlSafe: Bool = false, into output: inout ExportBuffer) {
        output.append(byte: 0x22)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x22: output.append(bytes: [0x5C, 0x22])
            case 0x5C: output.append(bytes: [0x5C, 0x5C])
            case 0x0A: output.append(bytes: [0x5C, 0x6E])
            case 0x0D: output.append(bytes: [0x5C, 0x72])
            case 0x09: output.append(bytes: [0x5C, 0x74])
            case 0..<0x20: output.append(unicodeEscape(UInt16(byte)))
            case 0x3C, 0x3E, 0x26:
                // (A `where` after several patterns would guard only the last one.)
                if htmlSafe { output.append(unicodeEscape(UInt16(byte))) } else { output.append(byte: byte) }
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                output.append(unicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029))
                index += 2
            default: output.append(byte: byte)
            }
            index += 1
        }
        output.append(byte: 0x22)
    }

    static func unicodeEscape(_ unit: UInt16) -> String {
        let hex = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// A key and a value, with a comma before it unless it is the object's first.
    static func member(_ key: String, first: Bool = false, into output: inout ExportBuffer) {
        if !first { output.append(byte: 0x2C) }
        string(key, into: &output)
        output.append(byte: 0x3A)
    }

    /// A string or `null`.
    static func optional(_ text: String?, into output: inout ExportBuffer) {
        if let text { string(text, into: &output) } else { output.append("null") }
    }

    /// Bytes as a JSON path field: `key` holds the text (U+FFFD for each byte that is not UTF-8),
    /// and `keyBase64`, only when the bytes are not UTF-8, their exact bytes (the CLI's `JSONPath`
    /// rule).
    static func bytesMember(_ key: String, _ bytes: [UInt8], first: Bool = false, into output: inout ExportBuffer) {
        member(key, first: first, into: &output)
        if ExportText.isValidUTF8(bytes) {
            string(bytes: bytes, into: &output)
        } else {
            string(String(decoding: bytes, as: UTF8.self), into: &output)
            member(key + "Base64", into: &output)
            string(Data(bytes).base64EncodedString(), into: &output)
        }
    }
}

/// The JSON export: one object with the volumes, the roots and a flat list of entries.
enum ExportJSON {
    static func write(_ selection: ExportSelection, columns: [CatalogColumn], into output: inout ExportBuffer) {
        output.reserve(selection.roots.reduce(0) { $0 + $1.kept.count } * columns.count * 32)
        output.append("{\"format\":\"swift-bookmarks catalog export\",\"version\":1,\n\"columns\":[")
        for (index, column) in columns.enumerated() {
            if index > 0 { output.append(byte: 0x2C) }
            ExportJSONText.string(column.rawValue, into: &output)
        }
        output.append("],\n\"volumes\":[")
        for (index, volume) in selection.volumes.enumerated() {
            output.append(index == 0 ? "\n" : ",\n")
            volumeObject(volume, into: &output)
        }
        output.append("],\n\"roots\":[")
        for (index, root) in selection.roots.enumerated() {
            output.append(index == 0 ? "\n" : ",\n")
            output.append("{\"volume\":" + String(root.snapshot.volume.id))
            ExportJSONText.bytesMember("path", root.snapshot.rootPath, into: &output)
            ExportJSONText.member("scanned", into: &output)
            ExportJSONText.string(ExportText.iso8601(root.snapshot.scannedAt), into: &output)
            output.append(",\"entries\":" + String(root.kept.count) + "}")
        }
        output.append("],\n\"entries\":[")
        var first = true
        var scratch: [UInt8] = []
        // `,"key":` for each column, and `,"keyBase64":` for the twin (the same rule as
        // ``ExportJSONText/bytesMember(_:_:first:into:)``), made once.
        let keys = columns.map { Array(",\"\($0.rawValue)\":".utf8) }
        let base64Keys = columns.map { Array(",\"\($0.rawValue)Base64\":".utf8) }
        for (rootIndex, root) in selection.roots.enumerated() {
            for position in root.kept {
                output.append(first ? "\n" : ",\n")
                first = false
                let entry = root.snapshot.entries[position]
                let volume = selection.volume(of: entry, in: root)
                output.append("{\"root\":" + String(rootIndex))
                for (index, column) in columns.enumerated() {
                    let value = column.value(of: entry, volume: volume, json: true, scratch: &scratch)
                    output.append(bytes: keys[index])
                    switch value {
                    case .bytes(let bytes) where ExportText.isValidUTF8(bytes):
                        ExportJSONText.string(bytes: bytes, into: &output)
                    case .bytes(let bytes):
                        ExportJSONText.string(String(decoding: bytes, as: UTF8.self), into: &output)
                        output.append(bytes: base64Keys[index])
                        ExportJSONText.string(Data(bytes).base64EncodedString(), into: &output)
                    case .text(let text):
                        ExportJSONText.string(text, into: &output)
                    case .plain:
                        output.append(byte: 0x22)
                        output.append(bytes: scratch)
                        output.append(byte: 0x22)
                    case .number:
                        output.append(bytes: scratch)
                    case .empty:
                        output.append("null")
                    }
                }
                output.append(byte: 0x7D)
            }
        }
        output.append("]}\n")
    }

    /// A volume, every key present (`null` where unknown), as the CLI's volume objects.
    static func volumeObject(_ volume: CatalogVolume, into output: inout ExportBuffer) {
        output.append("{\"id\":" + String(volume.id))
        ExportJSONText.member("uuid", into: &output)
        ExportJSONText.optional(volume.uuid, into: &output)
        ExportJSONText.member("uuidSource", into: &output)
        ExportJSONText.string(volume.uuidSource, into: &output)
        ExportJSONText.member("label", into: &output)
        ExportJSONText.optional(volume.label, into: &output)
        ExportJSONText.member("fsType", into: &output)
        ExportJSONText.string(volume.fsType, into: &output)
        ExportJSONText.member("source", into: &output)
        ExportJSONText.string(volume.source, into: &output)
        ExportJSONText.bytesMember("mountPoint", volume.mountPoint, into: &output)
        ExportJSONText.member("persistent", into: &output)
        output.append(volume.isPersistent ? "true" : "false")
        output.append(byte: 0x7D)
    }
}
