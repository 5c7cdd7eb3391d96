// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles

/// The bytes a template's ``CreationPlan`` last wrote for one file, kept so that bookmarking the
/// same unchanged file again hands back those bytes instead of writing them again.
///
/// The bytes are a function of the creation's ``CreationTarget`` alone, for a given template:
/// the plan writes ``Bookmark/facts(_:options:)`` of the target, and the template fixes the
/// plan, the options and (by being looked up for an equal ``Volume``) the volume. So the memo
/// answers a target equal to the one it kept in every field (``CreationTarget/writesSameBytes(as:)``:
/// the path, every directory's inode, and every field of the object's `FileID`: volume, inode,
/// generation, handle, birth time, size, kind, mode, owner, mounts, device, modification time).
/// The target is still found by every creation (the object's `statx` and handle, the ancestor
/// chain, the mount table), so a renamed, replaced, grown or touched file, or a renamed folder
/// on its path, makes another target and is written again.
///
/// Why: apps bookmark the same file again and again (a document's recent-items entry and its
/// window's restoration state on every save, a library re-recording its items), and writing the
/// bytes was about a third of `url.bookmarkData()` (the profile of 2026-11-27).
///
/// One entry per template: the bytes are kept from the second consecutive creation of the same
/// path on (the first only notes the target), so creating bookmarks of many files in turn pays a
/// comparison of paths and no copy of bytes.
final class WrittenMemo: Sendable {
    /// The target last noted and, once kept, its bytes. Two optionals rather than one optional
    /// entry: reading a field through `state.target?` does not copy the whole target (a copy
    /// retained and released every array and box in it: half the cost of a look-up, perf).
    private struct State {
        var target: CreationTarget?
        var bytes: [UInt8]?
    }

    private let last = Locked(State())

    /// What to do with a creation's target.
    enum Lookup {
        /// Its bytes, as the plan wrote them.
        case known([UInt8])
        /// Write them; when `keep` is true, hand the bytes to ``keep(_:for:)``.
        case write(keep: Bool)
    }

    /// The kept bytes when `target` writes the same bytes as the kept one; notes `target` otherwise.
    func lookUp(_ target: CreationTarget) -> Lookup {
        last.withLock { state in
            guard state.target?.path == target.path else {
                state = State(target: target, bytes: nil)
                return .write(keep: false)
            }
            if state.bytes != nil, state.target?.writesSameBytes(as: target) == true, let bytes = state.bytes {
                return .known(bytes)
            }
            state = State(target: target, bytes: nil)
            return .write(keep: true)
        }
    }

    /// Keeps `bytes`, written for `target`, unless another creation has noted another target since.
    func keep(_ bytes: [UInt8], for target: CreationTarget) {
        last.withLock { state in
            guard state.bytes == nil, state.target?.writesSameBytes(as: target) == true else { return }
            state.bytes = bytes
        }
    }

    /// Whether bytes are kept (for tests).
    var holdsBytes: Bool { last.withLock { $0.bytes != nil } }
}

extension CreationTarget {
    /// Whether a plan writes the same bytes for both: every field a creation's facts could be
    /// taken from is equal. A superset of what ``Bookmark/facts(_:options:)`` reads today, so a
    /// fact added there from a field already here needs no change; `WrittenMemoTests` fails
    /// when `FileID` gains a stored field that is not compared here.
    func writesSameBytes(as other: CreationTarget) -> Bool {
        path == other.path && pathIsNormal == other.pathIsNormal
            && ancestors?.inodes == other.ancestors?.inodes && ancestors?.path == other.ancestors?.path
            && id.hasSameFields(as: other.id)
    }
}

extension FileID {
    /// The stored fields ``hasSameFields(as:)`` compares (a test checks this against `Mirror`).
    static let comparedFieldCount = 15

    /// Whether every stored field is equal (`==` compares identity only).
    func hasSameFields(as other: FileID) -> Bool {
        inode == other.inode && generation == other.generation && subvolume == other.subvolume
            && birthTime == other.birthTime && size == other.size && kind == other.kind && mode == other.mode
            && uid == other.uid && gid == other.gid && mountID == other.mountID
            && uniqueMountID == other.uniqueMountID && device == other.device
            && modificationTime == other.modificationTime && handle == other.handle && volume == other.volume
    }
}
