// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// Records written to stdout as they come, as one JSON array (`--json`, byte for byte what
/// `Output.json` writes for the whole array: pretty-printed, sorted keys) or as JSON Lines
/// (`--jsonl`). `find --json` built every hit's record and the encoder's whole output before
/// writing a byte: on 200,000 hits about 500 MB, three times the text output's.
struct CatalogJSONStream {
    /// A JSON array, or one object per line.
    enum Format { case array, lines }

    private let format: Format
    /// One encoder for every record, not one per record.
    private let encoder = JSONEncoder()
    /// Written in blocks, not one `write` per record.
    private var pending: [UInt8] = []
    private var count = 0
    private static let blockSize = 1 << 16

    init(_ format: Format) {
        self.format = format
        switch format {
        case .array: encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        case .lines: encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        }
        pending.reserveCapacity(Self.blockSize + 4096)
    }

    /// Encodes one record and queues it.
    mutating func append<T: Encodable>(_ record: T) throws {
        switch format {
        case .lines:
            pending.append(contentsOf: try encoder.encode(record))
            pending.append(0x0A)
        case .array:
            // The record encoded as a one-element array, so that the encoder indents it one level
            // in, as inside the whole array; "[\n" and "\n]" around it are left out.
            let encoded = try encoder.encode([record])
            pending.append(contentsOf: count == 0 ? Array("[\n".utf8) : Array(",\n".utf8))
            pending.append(contentsOf: encoded.count > 4 ? encoded.dropFirst(2).dropLast(2) : encoded[...])
        }
        count += 1
        if pending.count >= Self.blockSize { flush() }
    }

    /// Closes the array (`[` and `]` around an empty line when there was no record, as
    /// JSONEncoder writes an empty array) and writes what is left.
    mutating func finish() {
        if format == .array { pending.append(contentsOf: Array((count == 0 ? "[\n\n]\n" : "\n]\n").utf8)) }
        flush()
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        Output.write(pending, to: STDOUT_FILENO)
        pending.removeAll(keepingCapacity: true)
    }
}
