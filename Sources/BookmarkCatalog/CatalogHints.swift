// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import GRDB

/// Catalogs as a resolution's memory: where a bookmarked object was seen since the bookmark was
/// made. Pass it as `ResolutionOptions.locationHints`:
///
/// ```swift
/// let hints = CatalogHints([try Catalog(path: path, create: false)])
/// let resolution = try bookmark.resolve(ResolutionOptions(locationHints: hints))
/// ```
///
/// - When the volume is mounted and the object moved, its latest catalogued place (same volume
///   UUID, inode, and generation and birth time where both sides know them) is tried and verified
///   before any search: one `statx` instead of a walk of the volume (`matchedBy: .catalog`).
/// - When the volume is not mounted, the error's `lastSighting` says where and when a catalog last
///   saw it.
///
/// Only volumes with a persistent identity (a UUID) can be matched: tmpfs and network file systems
/// cannot (Docs/CATALOG.md).
public struct CatalogHints: LocationHintProvider {
    /// The catalogs asked, in order.
    public let catalogs: [Catalog]

    /// Hints from these catalogs.
    public init(_ catalogs: [Catalog]) { self.catalogs = catalogs }

    /// Live sightings, newest first, as paths inside the volume.
    public func pathsInVolume(for identity: BookmarkedIdentity) -> [[UInt8]] {
        sightings(of: identity, includingDeleted: false).map(\.pathInVolume)
    }

    /// The newest sighting, live or last seen before it was found gone.
    public func lastSighting(for identity: BookmarkedIdentity) -> LastSighting? {
        sightings(of: identity, includingDeleted: true).first.map {
            LastSighting(path: $0.path, seen: $0.seen, volumeLabel: $0.label, source: $0.catalog)
        }
    }

    struct Sighting {
        var path: [UInt8]
        var pathInVolume: [UInt8]
        var seen: Date
        var label: String?
        var catalog: String
    }

    func sightings(of identity: BookmarkedIdentity, includingDeleted: Bool) -> [Sighting] {
        guard let uuid = identity.volumeUUID, let inode = identity.inode else { return [] }
        var found: [Sighting] = []
        for catalog in catalogs {
            let rows =
                (try? catalog.read { db -> [(Row, [UInt8]?)] in
                    var paths = try PathResolver(db)
                    let rows = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT entry.id, entry.kind, entry.btime, entry.generation, entry.root_id, entry.deleted_in,
                                volume.label, root.path AS root_path, root.path_in_volume,
                                entry.volume_id <> root.volume_id AS below_root_volume, volume.mount_point,
                                COALESCE(scan.finished, scan.started) AS seen
                            FROM entry JOIN volume ON volume.id = entry.volume_id JOIN root ON root.id = entry.root_id
                                JOIN scan ON scan.id = entry.last_seen
                            WHERE lower(volume.uuid) = lower(?) AND volume.persistent AND entry.inode = ?
                            """ + (includingDeleted ? "" : " AND entry.deleted_in IS NULL") + " ORDER BY seen DESC",
                        arguments: [uuid, inode.storedBits])
                    return try rows.map { ($0, try paths.path(of: $0["id"], db)) }
                }) ?? []
            for (row, path) in rows {
                guard let path else { continue }
                let kind = CatalogEntryKind(rawValue: row["kind"]) ?? .other
                guard (kind == .directory) == identity.isDirectory else { continue }
                if let born = identity.bornNanoseconds, let recorded: Int64 = row["btime"], recorded != born { continue }
                if let generation = identity.generation, let recorded: Int64 = row["generation"],
                    UInt64(truncatingIfNeeded: recorded) != generation
                {
                    continue
                }
                var rootPath = row.bytes("root_path")
                var rootInVolume = row.bytes("path_in_volume")
                if row["below_root_volume"] as Bool? == true {
                    // On a file system mounted below the root (a scan across mounts): its path
                    // inside that volume is below the volume's mount point as the scan saw it.
                    rootPath = row.bytes("mount_point")
                    rootInVolume = [0x2F]
                }
                let below: [UInt8]
                if rootPath == [0x2F] {
                    below = path
                } else if path.starts(with: rootPath) {
                    below = Array(path.dropFirst(rootPath.count))
                } else {
                    continue
                }
                let inVolume = rootInVolume == [0x2F] ? (below.isEmpty ? [0x2F] : below) : rootInVolume + below
                found.append(
                    Sighting(
                        path: path, pathInVolume: inVolume, seen: Date(timeIntervalSince1970: row["seen"]), label: row["label"],
                        catalog: catalog.path))
            }
        }
        return found.sorted { $0.seen > $1.seen }
    }
}
