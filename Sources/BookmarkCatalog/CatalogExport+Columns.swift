// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One field of one entry, before a format writes it.
enum ExportValue {
    /// Bytes that may not be UTF-8 (a path, a name, a link target): each format has its own way.
    case bytes([UInt8])
    /// Text that a format may have to escape (a volume's UUID or mount source).
    case text(String)
    /// ASCII in the scratch buffer that no format has to escape: a kind, a date, octal, hex.
    case plain
    /// Decimal digits in the scratch buffer (JSON writes them bare).
    case number
    /// Nothing: an empty field, JSON's `null`.
    case empty
}

extension CatalogColumn {
    /// The field of `entry` this column writes. Numbers and dates are written into `scratch` (one
    /// buffer reused for every field: 100,000 entries make no strings). `json` makes `volume` the
    /// volume's id (JSON lists the volumes once) instead of its UUID or mount source.
    func value(of entry: CatalogEntry, volume: CatalogVolume, json: Bool, scratch: inout [UInt8]) -> ExportValue {
        scratch.removeAll(keepingCapacity: true)
        switch self {
        case .path:
            return .bytes(entry.path)
        case .name:
            return .bytes(entry.name)
        case .kind:
            scratch.append(contentsOf: entry.kind.description.utf8)
            return .plain
        case .size:
            ExportText.appendDigits(entry.size, into: &scratch)
            return .number
        case .modified:
            ExportText.appendISO8601(nanoseconds: entry.modifiedNanoseconds, into: &scratch)
            return .plain
        case .changed:
            ExportText.appendISO8601(nanoseconds: entry.changedNanoseconds, into: &scratch)
            return .plain
        case .born:
            guard let born = entry.bornNanoseconds else { return .empty }
            ExportText.appendISO8601(nanoseconds: born, into: &scratch)
            return .plain
        case .mode:
            ExportText.appendDigits(UInt64(entry.mode), radix: 8, into: &scratch)
            return .plain
        case .uid:
            ExportText.appendDigits(UInt64(entry.uid), into: &scratch)
            return .number
        case .gid:
            ExportText.appendDigits(UInt64(entry.gid), into: &scratch)
            return .number
        case .inode:
            ExportText.appendDigits(entry.inode, into: &scratch)
            return .number
        case .generation:
            guard let generation = entry.generation else { return .empty }
            ExportText.appendDigits(UInt64(generation), into: &scratch)
            return .number
        case .linkTarget:
            return entry.linkTarget.map { .bytes($0) } ?? .empty
        case .sha256:
            guard let digest = entry.sha256 else { return .empty }
            ExportText.appendHex(digest, into: &scratch)
            return .plain
        case .firstSeen:
            ExportText.appendISO8601(entry.firstSeen, into: &scratch)
            return .plain
        case .lastSeen:
            ExportText.appendISO8601(entry.lastSeen, into: &scratch)
            return .plain
        case .volume:
            guard json else { return .text(volume.uuid ?? volume.source) }
            ExportText.appendDecimal(volume.id, into: &scratch)
            return .number
        case .deleted:
            guard let deleted = entry.deleted else { return .empty }
            ExportText.appendISO8601(deleted, into: &scratch)
            return .plain
        }
    }

    /// Whether the column holds a number a table should align right.
    var isNumeric: Bool {
        switch self {
        case .size, .uid, .gid, .inode, .generation: true
        default: false
        }
    }
}
