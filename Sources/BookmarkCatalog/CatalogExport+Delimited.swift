// SPDX-License-Identifier: Apache-2.0
import Foundation

/// CSV and TSV: a header line of column names, then one line per entry.
enum ExportDelimited {
    enum Style {
        /// RFC 4180: `,` between fields, CRLF after each record, a field quoted (`"`, inner quotes
        /// doubled) when it holds `,`, `"`, CR or LF. Bytes that are not UTF-8 are `\xNN`.
        case csv
        /// Tab between fields, LF after each record; inside a field `\` is `\\`, tab `\t`, LF `\n`,
        /// CR `\r`, and a byte that is not UTF-8 `\xNN`: lossless, and a record is always one line.
        case tsv

        var separator: UInt8 { self == .csv ? 0x2C : 0x09 }
        var lineEnd: [UInt8] { self == .csv ? [0x0D, 0x0A] : [0x0A] }
    }

    static func write(_ selection: ExportSelection, columns: [CatalogColumn], style: Style, into output: inout ExportBuffer) {
        output.reserve(selection.roots.reduce(0) { $0 + $1.kept.count } * columns.count * 24)
        for (index, column) in columns.enumerated() {
            if index > 0 { output.append(byte: style.separator) }
            output.append(column.rawValue)
        }
        let lineEnd = style.lineEnd
        output.append(bytes: lineEnd)
        var scratch: [UInt8] = []
        var text: [UInt8] = []
        for root in selection.roots {
            for position in root.kept {
                let entry = root.snapshot.entries[position]
                let volume = selection.volume(of: entry, in: root)
                for (index, column) in columns.enumerated() {
                    if index > 0 { output.append(byte: style.separator) }
                    switch column.value(of: entry, volume: volume, json: false, scratch: &scratch) {
                    case .plain, .number:
                        output.append(bytes: scratch)
                    case .bytes(let bytes) where style == .tsv:
                        tsvField(bytes, into: &output)
                    case .bytes(let bytes):
                        guard !ExportText.isValidUTF8(bytes) else {
                            csvField(bytes, into: &output)
                            break
                        }
                        text.removeAll(keepingCapacity: true)
                        ExportText.appendText(bytes, into: &text)
                        csvField(text, into: &output)
                    case .text(let value):
                        style == .csv ? csvField(Array(value.utf8), into: &output) : tsvField(Array(value.utf8), into: &output)
                    case .empty:
                        break
                    }
                }
                output.append(bytes: lineEnd)
            }
        }
    }

    /// A CSV field, quoted only when it must be.
    static func csvField(_ field: [UInt8], into output: inout ExportBuffer) {
        guard field.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else {
            output.append(bytes: field)
            return
        }
        output.append(byte: 0x22)
        for byte in field {
            if byte == 0x22 { output.append(byte: 0x22) }
            output.append(byte: byte)
        }
        output.append(byte: 0x22)
    }

    /// A TSV field with its escapes (``Style/tsv``).
    static func tsvField(_ field: [UInt8], into output: inout ExportBuffer) {
        ExportText.forEachRun(
            field,
            valid: { run in
                for byte in run {
                    switch byte {
                    case 0x5C: output.append(bytes: [0x5C, 0x5C])
                    case 0x09: output.append(bytes: [0x5C, 0x74])
                    case 0x0A: output.append(bytes: [0x5C, 0x6E])
                    case 0x0D: output.append(bytes: [0x5C, 0x72])
                    default: output.append(byte: byte)
                    }
                }
            },
            invalid: { ExportText.appendHexEscape($0, into: &output.bytes) })
    }
}
