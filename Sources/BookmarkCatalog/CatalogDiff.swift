// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

/// Two catalogs compared by file identity: the same object is matched by volume, inode number,
/// kind, and generation and birth time where both know them, never by name; so a renamed or moved
/// entry is one move, and a moved directory is one move with its contents unchanged under it.
public enum CatalogDiff {
    /// What changed from `old` to `new` (their live entries).
    public static func changes(from old: Catalog, to new: Catalog) throws(CatalogError) -> [CatalogChange] {
        var volumeKeys: [String: Int32] = [:]
        let before = try Tree.load(old, volumeKeys: &volumeKeys)
        let after = try Tree.load(new, volumeKeys: &volumeKeys)
        return compare(before, after)
    }

    // MARK: The trees

    struct Node {
        var parent: Int32
        var name: [UInt8]
        var kind: UInt8
        var size: Int64
        var mtime: Int64
        var btime: Int64?
        var generation: Int64?
        var inode: Int64
        var volume: Int32
        var linkTarget: [UInt8]?
    }

    struct Identity: Hashable {
        var volume: Int32
        var inode: Int64
    }

    /// A catalog's live entries, with parent links as indices.
    struct Tree {
        var nodes: [Node] = []
        var rootPaths: [Int32: [UInt8]] = [:]

        static func load(_ catalog: Catalog, volumeKeys: inout [String: Int32]) throws(CatalogError) -> Tree {
            var keys = volumeKeys
            let tree = try catalog.read { db -> Tree in
                var volumeIndex: [Int64: Int32] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, key FROM volume") {
                    let key: String = row["key"]
                    let index = keys[key] ?? Int32(keys.count)
                    keys[key] = index
                    volumeIndex[row["id"]] = index
                }
                var tree = Tree()
                var indexOf: [Int64: Int32] = [:]
                var parentIDs: [Int64?] = []
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, parent_id, name, kind, size, mtime, btime, generation, inode, volume_id, link_target
                        FROM entry WHERE deleted_in IS NULL
                        """)
                while let row = try rows.next() {
                    indexOf[row["id"]] = Int32(tree.nodes.count)
                    parentIDs.append(row["parent_id"])
                    tree.nodes.append(
                        Node(
                            parent: -1, name: row.bytes("name"), kind: UInt8(truncatingIfNeeded: row["kind"] as Int64), size: row["size"],
                            mtime: row["mtime"], btime: row["btime"], generation: row["generation"], inode: row["inode"],
                            volume: volumeIndex[row["volume_id"]] ?? -1, linkTarget: row.optionalBytes("link_target")))
                }
                for (index, parent) in parentIDs.enumerated() {
                    if let parent, let parentIndex = indexOf[parent] { tree.nodes[index].parent = parentIndex }
                }
                for row in try Row.fetchAll(db, sql: "SELECT entry_id, path FROM root WHERE entry_id IS NOT NULL") {
                    if let index = indexOf[row["entry_id"]] { tree.rootPaths[index] = row.bytes("path") }
                }
                return tree
            }
            volumeKeys = keys
            return tree
        }

        func path(of index: Int32, cache: inout [Int32: [UInt8]]) -> [UInt8] {
            if let known = cache[index] ?? rootPaths[index] { return known }
            var chain: [Int32] = []
            var cursor = index
            var base: [UInt8] = []
            while cursor >= 0 {
                if let known = cache[cursor] ?? rootPaths[cursor] {
                    base = known
                    break
                }
                chain.append(cursor)
                cursor = nodes[Int(cursor)].parent
                if chain.count > 4_096 { break }
            }
            var path = base
            for node in chain.reversed() {
                let name = nodes[Int(node)].name
                path = path == [0x2F] ? [0x2F] + name : path + [0x2F] + name
                cache[node] = path
            }
            return path
        }
    }

    // MARK: Matching

    static func compare(_ before: Tree, _ after: Tree) -> [CatalogChange] {
        var candidates: [Identity: [Int32]] = [:]
        for (index, node) in before.nodes.enumerated() {
            candidates[Identity(volume: node.volume, inode: node.inode), default: []].append(Int32(index))
        }
        var matchOfNew = [Int32](repeating: -1, count: after.nodes.count)
        var matchedOld = [Bool](repeating: false, count: before.nodes.count)
        func sameObject(_ a: Node, _ b: Node) -> Bool {
            a.kind == b.kind && (a.btime == nil || b.btime == nil || a.btime == b.btime)
                && (a.generation == nil || b.generation == nil || a.generation == b.generation)
        }
        // First the entries still at the same name under a parent with the same inode (the
        // usual case, and what keeps hard links apart), then any other unmatched same object.
        for pass in 0..<2 {
            for (index, node) in after.nodes.enumerated() where matchOfNew[index] < 0 {
                guard let list = candidates[Identity(volume: node.volume, inode: node.inode)] else { continue }
                for candidate in list where !matchedOld[Int(candidate)] {
                    let old = before.nodes[Int(candidate)]
                    guard sameObject(old, node) else { continue }
                    if pass == 0 {
                        let oldParentInode = old.parent >= 0 ? before.nodes[Int(old.parent)].inode : nil
                        let newParentInode = node.parent >= 0 ? after.nodes[Int(node.parent)].inode : nil
                        guard old.name == node.name, oldParentInode == newParentInode else { continue }
                    }
                    matchOfNew[index] = candidate
                    matchedOld[Int(candidate)] = true
                    break
                }
            }
        }
        var newPaths: [Int32: [UInt8]] = [:]
        var oldPaths: [Int32: [UInt8]] = [:]
        var items: [(key: Int64, change: CatalogChange)] = []
        // Keys: new indices as they are, old indices offset below zero, so one parent map serves both.
        func oldKey(_ index: Int32) -> Int64 { -1 - Int64(index) }
        for (index, node) in after.nodes.enumerated() {
            let match = matchOfNew[index]
            let kind = CatalogEntryKind(rawValue: Int(node.kind)) ?? .other
            guard match >= 0 else {
                items.append(
                    (
                        Int64(index),
                        CatalogChange(
                            kind: .added, entryKind: kind, path: after.path(of: Int32(index), cache: &newPaths),
                            size: UInt64(storedBits: node.size), inode: UInt64(storedBits: node.inode))
                    ))
                continue
            }
            let old = before.nodes[Int(match)]
            let parentMatches =
                node.parent < 0 ? old.parent < 0 || after.rootPaths[Int32(index)] != nil : matchOfNew[Int(node.parent)] == old.parent
            if !parentMatches || old.name != node.name, after.rootPaths[Int32(index)] == nil {
                items.append(
                    (
                        Int64(index),
                        CatalogChange(
                            kind: .moved, entryKind: kind, path: after.path(of: Int32(index), cache: &newPaths),
                            oldPath: before.path(of: match, cache: &oldPaths), size: UInt64(storedBits: node.size),
                            inode: UInt64(storedBits: node.inode))
                    ))
            }
            if kind != .directory, old.size != node.size || old.mtime != node.mtime || old.linkTarget != node.linkTarget {
                items.append(
                    (
                        Int64(index),
                        CatalogChange(
                            kind: .modified, entryKind: kind, path: after.path(of: Int32(index), cache: &newPaths),
                            size: UInt64(storedBits: node.size), inode: UInt64(storedBits: node.inode))
                    ))
            }
        }
        for (index, node) in before.nodes.enumerated() where !matchedOld[index] {
            items.append(
                (
                    oldKey(Int32(index)),
                    CatalogChange(
                        kind: .deleted, entryKind: CatalogEntryKind(rawValue: Int(node.kind)) ?? .other,
                        path: before.path(of: Int32(index), cache: &oldPaths), size: UInt64(storedBits: node.size),
                        inode: UInt64(storedBits: node.inode))
                ))
        }
        let folded = [CatalogChange].folding(items) { key -> Int64? in
            if key >= 0 {
                let parent = after.nodes[Int(key)].parent
                return parent >= 0 ? Int64(parent) : nil
            }
            let parent = before.nodes[Int(-1 - key)].parent
            return parent >= 0 ? oldKey(parent) : nil
        }
        return folded.sorted { left, right in
            left.path == right.path ? left.kind.rawValue < right.kind.rawValue : left.path.lexicographicallyPrecedes(right.path)
        }
    }
}
