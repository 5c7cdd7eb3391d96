// SPDX-License-Identifier: Apache-2.0
import Digests
import Foundation

/// The HTML export: one file with its style, its script and the catalog's data inline, openable
/// from disk, asking for nothing from the network (Docs/CATALOG-EXPORTS.md, "The HTML page").
///
/// Names are hostile input. They reach the page only as JSON strings inside a
/// `<script type="application/json">` element, with `<`, `>`, `&`, U+2028 and U+2029 escaped, so no
/// name can end that element or start markup; the page's script puts them into the document with
/// `textContent` and never parses them as HTML. The Content-Security-Policy lets only the page's
/// own script and style run, by their SHA-256, so markup that got in anyway could run nothing.
enum ExportHTML {
    static func write(_ selection: ExportSelection, title: String, into output: inout ExportBuffer) {
        let script = ExportHTMLAssets.script
        let style = ExportHTMLAssets.style
        output.reserve(selection.roots.reduce(0) { $0 + $1.kept.count } * 60 + script.utf8.count + style.utf8.count + 4096)
        output.append(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy(script: script, style: style))">
            <meta name="referrer" content="no-referrer">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="swift-bookmarks">
            <title>\(escapedText(title))</title>
            <link rel="icon" href="data:,">
            <style>
            """)
        output.append(style)
        output.append("</style>\n</head>\n<body>\n")
        output.append(ExportHTMLAssets.body)
        output.append("<script type=\"application/json\" id=\"catalog-data\">")
        writeData(selection, title: title, into: &output)
        output.append("</script>\n<script>")
        output.append(script)
        output.append("</script>\n</body>\n</html>\n")
    }

    /// Nothing may load but the page's own script and style, matched by hash: no other script, no
    /// inline handler (`onerror=` in a name), no network, no form, no `<base>`. Trusted Types make
    /// any string assigned to `innerHTML` and its kin an error, should a later edit of the script
    /// try one.
    static func contentSecurityPolicy(script: String, style: String) -> String {
        [
            "default-src 'none'",
            "script-src '\(hashSource(script))'",
            "style-src '\(hashSource(style))'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
            "require-trusted-types-for 'script'",
            "trusted-types 'none'",
        ].joined(separator: "; ")
    }

    /// `sha256-…` of an inline element's exact text, as CSP compares it.
    static func hashSource(_ text: String) -> String {
        "sha256-" + Data(Digests.sha256(Array(text.utf8))).base64EncodedString()
    }

    /// Text for an HTML element or attribute.
    static func escapedText(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The catalog as the page's script reads it: for each root its volume, and its entries as
    /// parallel arrays (names, parent positions, kinds, sizes, modification times), which is a
    /// third of the size of one object per entry and parses faster. Folders' totals are summed by
    /// the script.
    static func writeData(_ selection: ExportSelection, title: String, into output: inout ExportBuffer) {
        output.append("{\"title\":")
        ExportJSONText.string(title, htmlSafe: true, into: &output)
        output.append(",\"roots\":[")
        for (rootIndex, root) in selection.roots.enumerated() {
            if rootIndex > 0 { output.append(byte: 0x2C) }
            let snapshot = root.snapshot
            let volume = snapshot.volume
            output.append("\n{\"path\":")
            ExportJSONText.string(ExportText.visible(snapshot.rootPath), htmlSafe: true, into: &output)
            output.append(",\"scanned\":")
            ExportJSONText.string(ExportText.iso8601(snapshot.scannedAt), htmlSafe: true, into: &output)
            // A date JavaScript can hold (±8.64e15 ms), or 0.
            let scannedMilliseconds = (snapshot.scannedAt.timeIntervalSince1970 * 1000).rounded()
            let representable = scannedMilliseconds.isFinite && abs(scannedMilliseconds) <= 8.64e15
            output.append(",\"scannedMs\":" + (representable ? String(Int64(scannedMilliseconds)) : "0"))
            output.append(",\"volume\":{\"label\":")
            optionalString(volume.label, into: &output)
            output.append(",\"uuid\":")
            optionalString(volume.uuid, into: &output)
            output.append(",\"uuidSource\":")
            ExportJSONText.string(volume.uuidSource, htmlSafe: true, into: &output)
            output.append(",\"fsType\":")
            ExportJSONText.string(volume.fsType, htmlSafe: true, into: &output)
            output.append(",\"source\":")
            ExportJSONText.string(volume.source, htmlSafe: true, into: &output)
            output.append(",\"mountPoint\":")
            ExportJSONText.string(ExportText.visible(volume.mountPoint), htmlSafe: true, into: &output)
            output.append(",\"persistent\":" + (volume.isPersistent ? "true" : "false") + "}")
            writeEntries(root, into: &output)
            output.append("}")
        }
        output.append("]}")
    }

    private static func optionalString(_ text: String?, into output: inout ExportBuffer) {
        if let text { ExportJSONText.string(text, htmlSafe: true, into: &output) } else { output.append("null") }
    }

    private static func writeEntries(_ root: ExportSelection.Root, into output: inout ExportBuffer) {
        let entries = root.snapshot.entries
        // A kept entry's position in the page's arrays; the parents of kept entries are kept.
        var compact = [Int](repeating: -1, count: entries.count)
        for (index, position) in root.kept.enumerated() { compact[position] = index }
        output.append(",\n\"names\":[")
        for (index, position) in root.kept.enumerated() {
            if index > 0 { output.append(byte: 0x2C) }
            // The root is shown by its whole path; everything else by its name.
            let bytes = root.parents[position] < 0 && index == 0 ? root.snapshot.rootPath : entries[position].name
            visibleString(bytes, into: &output)
        }
        output.append("],\n\"parents\":[")
        for (index, position) in root.kept.enumerated() {
            if index > 0 { output.append(byte: 0x2C) }
            let parent = root.parents[position]
            ExportText.appendDecimal(Int64(parent >= 0 ? compact[parent] : -1), into: &output.bytes)
        }
        output.append("],\n\"kinds\":\"")
        for position in root.kept {
            switch entries[position].kind {
            case .file: output.append(byte: 0x66)  // f
            case .directory: output.append(byte: 0x64)  // d
            case .symlink: output.append(byte: 0x6C)  // l
            case .other: output.append(byte: 0x6F)  // o
            }
        }
        output.append("\",\n\"sizes\":[")
        for (index, position) in root.kept.enumerated() {
            if index > 0 { output.append(byte: 0x2C) }
            // A folder's own st_size says nothing to a person; the script sums what is inside.
            let entry = entries[position]
            ExportText.appendDigits(entry.kind == .directory ? 0 : entry.size, into: &output.bytes)
        }
        output.append("],\n\"mtimes\":[")
        for (index, position) in root.kept.enumerated() {
            if index > 0 { output.append(byte: 0x2C) }
            // Whole seconds, rounded down (also before 1970): the page shows minutes.
            let nanoseconds = entries[position].modifiedNanoseconds
            var seconds = nanoseconds / 1_000_000_000
            if nanoseconds % 1_000_000_000 < 0 { seconds -= 1 }
            ExportText.appendDecimal(seconds, into: &output.bytes)
        }
        output.append("],\n\"links\":[")
        var firstLink = true
        for (index, position) in root.kept.enumerated() {
            guard let target = entries[position].linkTarget else { continue }
            output.append(firstLink ? "[" : ",[")
            firstLink = false
            output.append(String(index) + ",")
            visibleString(target, into: &output)
            output.append("]")
        }
        output.append("]")
    }

    /// ``ExportText/visible(_:)`` of `bytes` as a JSON string for the page; printable ASCII (most
    /// names) is its own visible form and is written without making a `String`.
    private static func visibleString(_ bytes: [UInt8], into output: inout ExportBuffer) {
        if ExportText.isPrintableASCII(bytes) {
            ExportJSONText.string(bytes: bytes, htmlSafe: true, into: &output)
        } else {
            ExportJSONText.string(ExportText.visible(bytes), htmlSafe: true, into: &output)
        }
    }
}
