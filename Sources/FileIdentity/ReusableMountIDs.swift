// SPDX-License-Identifier: Apache-2.0
import SecureFiles

/// The reusable mount id (the one `/proc/self/mountinfo` lists) of each unique mount id `statx`
/// reported, asked of `statmount` once per mount.
///
/// A unique mount id (Linux 6.8+) is never given to another mount during a boot, and a mount keeps
/// its reusable id while it exists; so an answer never goes stale for a `statx` that can still
/// return that unique id. Bound: 4,096 entries, then it starts over.
final class ReusableMountIDs: Sendable {
    static let shared = ReusableMountIDs()
    private static let capacity = 4096
    private let known = Locked([UniqueMountID: MountID]())

    /// The reusable id of the mount `unique` names, or `nil` when `statmount` cannot tell (an older
    /// kernel, or the mount is gone).
    func reusable(for unique: UniqueMountID) -> MountID? {
        if let hit = known.withLock({ $0[unique] }) { return hit }
        guard case .success(let id) = unique.reusableID() else { return nil }
        known.withLock { table in
            if table.count >= Self.capacity { table.removeAll() }
            table[unique] = id
        }
        return id
    }
}

extension FileStatus {
    /// The reusable id of the mount this status was taken on (what `/proc/self/mountinfo` and
    /// mount tables use): `statx`'s own when it gave that one, else the one ``ReusableMountIDs``
    /// learns for its unique id; `nil` when neither is known.
    var reusableMountID: MountID? {
        mountID ?? uniqueMountID.flatMap { ReusableMountIDs.shared.reusable(for: $0) }
    }
}
