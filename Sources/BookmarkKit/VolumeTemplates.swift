// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles

/// Records that already carry a volume's facts (key group `0x2000`: path, URL, name, UUID,
/// capacity, mount point birth time; plus the creation options and the user), one per volume and
/// set of options, so that each creation starts from a copy instead of encoding them again.
///
/// The copy shares the template's encoded items until the creation changes them, so the saving
/// is both the encoding (the UUID string parsed back to bytes, the URL built) and the freeing of
/// those items when the bookmark goes away. Profiled at about a sixth of a cached creation.
/// A template is used only for a volume equal to the one it was made from, and only through
/// public `BookmarkRecord` API, so it does not depend on how records store their items.
final class VolumeTemplates: Sendable {
    /// The process's templates.
    static let shared = VolumeTemplates()

    /// Past this many templates (mounts times option sets), all are dropped and made again.
    static let capacity = 64

    struct Key: Hashable {
        var mountID: MountID
        var options: UInt32
        var uid: UInt32
    }

    /// A template and its ``CreationPlan`` (`nil` when the plan cannot reproduce its bytes).
    struct Template: Sendable {
        var volume: Volume
        var record: BookmarkRecord
        var plan: CreationPlan?
        /// The bytes ``plan`` last wrote, for the same file created again.
        var memo = WrittenMemo()
    }

    private let templates = Locked<[Key: Template]>([:])

    /// A record with `volume`'s facts, the options and the user set; made with `make` the first time.
    func record(
        for volume: Volume, options: BookmarkCreationOptions, uid: UInt32, make: () -> BookmarkRecord
    ) -> BookmarkRecord {
        template(for: volume, options: options, uid: uid, make: make).record
    }

    /// ``record(for:options:uid:make:)`` with the plan that writes bookmarks from it directly.
    func template(
        for volume: Volume, options: BookmarkCreationOptions, uid: UInt32, make: () -> BookmarkRecord
    ) -> Template {
        let key = Key(mountID: volume.mountID, options: options.rawValue, uid: uid)
        if let known = templates.withLock({ $0[key] }), known.volume == volume {
            // Equal but another copy (a fresh mount table's): keep the caller's, so the next
            // comparison is one of identity, not of every field.
            if !known.volume.isSameInstance(as: volume) {
                templates.withLock { templates in
                    if templates[key]?.volume == volume { templates[key]?.volume = volume }
                }
            }
            return known
        }
        let record = make()
        let made = Template(volume: volume, record: record, plan: CreationPlan(template: record, slots: Bookmark.creationSlots))
        templates.withLock { templates in
            if templates.count >= Self.capacity { templates = [:] }
            templates[key] = made
        }
        return made
    }
}
