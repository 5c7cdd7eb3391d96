// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The Markdown export: a heading, then for each root a heading, its volume, and a GitHub-style
/// table of its entries.
enum ExportMarkdown {
    static func write(_ selection: ExportSelection, columns: [CatalogColumn], title: String, into output: inout ExportBuffer) {
        output.reserve(selection.roots.reduce(0) { $0 + $1.kept.count } * columns.count * 24)
        output.append("# " + cell(title) + "\n")
        var scratch: [UInt8] = []
        for root in selection.roots {
            let volume = root.snapshot.volume
            output.append("\n## " + cell(ExportText.visible(root.snapshot.rootPath)) + "\n\n")
            var identity: [String] = []
            if let label = volume.label { identity.append("label " + cell(label)) }
            identity.append("UUID " + cell(volume.uuid ?? "none"))
            identity.append(cell(volume.fsType))
            identity.append("mounted at " + cell(ExportText.visible(volume.mountPoint)))
            identity.append("from " + cell(volume.source))
            output.append("Volume: " + identity.joined(separator: ", ") + ". Scanned " + ExportText.iso8601(root.snapshot.scannedAt))
            output.append(", \(root.kept.count) entries.\n\n|")
            for column in columns { output.append(" " + column.rawValue + " |") }
            output.append("\n|")
            for column in columns { output.append(column.isNumeric ? " ---: |" : " --- |") }
            output.append("\n")
            for position in root.kept {
                let entry = root.snapshot.entries[position]
                let entryVolume = selection.volume(of: entry, in: root)
                output.append(byte: 0x7C)
                for column in columns {
                    output.append(byte: 0x20)
                    switch column.value(of: entry, volume: entryVolume, json: false, scratch: &scratch) {
                    case .plain, .number: output.append(bytes: scratch)
                    case .bytes(let bytes) where bytes.allSatisfy(isPlain): output.append(bytes: bytes)
                    case .bytes(let bytes): output.append(cell(ExportText.visible(bytes)))
                    case .text(let value) where value.utf8.allSatisfy(isPlain): output.append(value)
                    case .text(let value): output.append(cell(value))
                    case .empty: break
                    }
                    output.append(bytes: [0x20, 0x7C])
                }
                output.append(byte: 0x0A)
            }
        }
    }

    /// Printable ASCII that Markdown reads as itself: most names, written as they are.
    private static func isPlain(_ byte: UInt8) -> Bool {
        guard byte >= 0x20, byte < 0x7F else { return false }
        switch byte {
        case 0x5C, 0x7C, 0x3C, 0x3E, 0x26, 0x5B, 0x5D, 0x60, 0x2A, 0x5F, 0x7E, 0x24: return false  // \ | < > & [ ] ` * _ ~ $
        default: return true
        }
    }

    /// `text` for a table cell, shown as it is: line breaks and other invisible characters are
    /// already `\n`-style escapes (``ExportText/visible(_:)``), and a backslash goes before each
    /// character that Markdown or GitHub would read as markup: `|` ends a cell, `<` starts HTML,
    /// `&` an entity, `[` a link, `` ` `` code, `*` `_` `~` emphasis, `$` maths, `\` an escape.
    static func cell(_ text: String) -> String {
        let special: Set<Unicode.Scalar> = ["\\", "|", "<", ">", "&", "[", "]", "`", "*", "_", "~", "$"]
        let visible = ExportText.visible(Array(text.utf8))
        guard visible.unicodeScalars.contains(where: special.contains) else { return visible }
        var result = ""
        for scalar in visible.unicodeScalars {
            if special.contains(scalar) { result += "\\" }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
