// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Files that look like copies of each other, across drives.
public struct DuplicateGroup: Sendable {
    /// How sure: the same SHA-256, or only the same size (a scan without `--hash`, or a file
    /// whose hash is not known).
    public enum Evidence: String, Sendable, Hashable, Codable {
        /// The same size and the same SHA-256.
        case sameHash = "same-hash"
        /// The same size; contents not compared.
        case sameSize = "same-size"
    }

    /// How sure.
    public var evidence: Evidence
    /// The size every member has.
    public var size: UInt64
    /// The hash, for `sameHash`.
    public var sha256: [UInt8]?
    /// The files, each with its drive and when it was last seen.
    public var members: [CatalogHit]
}

extension Catalog {
    /// Regular files (not empty) that share a size across `catalogs`, split by SHA-256 where every
    /// file of a size has one. Largest sizes first.
    public static func duplicates(in catalogs: [Catalog], matching query: CatalogQuery = CatalogQuery()) throws(CatalogError)
        -> [DuplicateGroup]
    {
        var query = query
        query.kind = .file
        query.minimumSize = max(query.minimumSize ?? 1, 1)
        var bySize: [UInt64: [CatalogHit]] = [:]
        for catalog in catalogs {
            for hit in try catalog.find(query) { bySize[hit.entry.size, default: []].append(hit) }
        }
        var groups: [DuplicateGroup] = []
        for (size, hits) in bySize where hits.count > 1 {
            if hits.allSatisfy({ $0.entry.sha256 != nil }) {
                var byHash: [[UInt8]: [CatalogHit]] = [:]
                for hit in hits { byHash[hit.entry.sha256 ?? [], default: []].append(hit) }
                for (hash, members) in byHash where members.count > 1 {
                    groups.append(DuplicateGroup(evidence: .sameHash, size: size, sha256: hash, members: members))
                }
            } else {
                groups.append(DuplicateGroup(evidence: .sameSize, size: size, sha256: nil, members: hits))
            }
        }
        return groups.sorted { left, right in
            if left.size != right.size { return left.size > right.size }
            return (left.members.first?.entry.path ?? []).lexicographicallyPrecedes(right.members.first?.entry.path ?? [])
        }
    }
}
