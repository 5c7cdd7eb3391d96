// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles

/// A plain creation (``Bookmark/isPlannable(_:)``, no resource keys, no base directory) kept as
/// what was found, not yet filled into a record.
///
/// Most new bookmarks are encoded at once (``Bookmark/data()``), which the template's
/// ``CreationPlan`` writes from the object's facts without a record, or are only kept and
/// compared. The record is filled the first time it is asked for, by the same steps and from the
/// same template a creation that fills it at once takes (``Bookmark/record(_:template:options:resourceKeys:relativeTo:)``),
/// so nothing a caller can see depends on when that happens: not the bytes (`CreationPlanTests`),
/// not the record (`PendingCreationTests`). The template is the one in force at creation, kept
/// here, so a volume's capacity changing in between does not change the record.
final class PendingCreation: Sendable {
    let target: CreationTarget
    let options: BookmarkCreationOptions
    let template: VolumeTemplates.Template
    private let filled = Locked<BookmarkRecord?>(nil)

    /// `nil` when the creation must be filled at once: not plannable, no plan for its template,
    /// or a birth time the Linux facts cannot encode (filling would throw, and a record asked
    /// for later cannot).
    init?(_ target: CreationTarget, options: BookmarkCreationOptions, volumes: MountedVolumes) {
        guard let template = Self.template(for: target, options: options, volumes: volumes) else { return nil }
        self.target = target
        self.options = options
        self.template = template
    }

    /// The template whose plan writes `target`'s bookmark; `nil` when the creation must be
    /// filled into a record (see ``init(_:options:volumes:)``).
    static func template(
        for target: CreationTarget, options: BookmarkCreationOptions, volumes: MountedVolumes
    ) -> VolumeTemplates.Template? {
        guard Bookmark.isPlannable(target), target.id.birthTime.map({ $0.nanoseconds < 1_000_000_000 }) ?? true else {
            return nil
        }
        let template = Bookmark.templateWithPlan(for: target.id.volume, options: options, volumes: volumes)
        return template.plan == nil ? nil : template
    }

    /// The record, filled on first use and kept.
    var record: BookmarkRecord {
        if let known = filled.withLock({ $0 }) { return known }
        let made = fill()
        filled.withLock { $0 = made }
        return made
    }

    /// The record for a caller that is about to edit it: the kept one if it was filled, else a
    /// new one not kept here, so the edit does not copy it first.
    func recordForEditing() -> BookmarkRecord {
        filled.withLock({ $0 }) ?? fill()
    }

    /// The record, filled from the kept template.
    private func fill() -> BookmarkRecord {
        // `init` admitted only creations whose filling cannot throw (the one check that could,
        // the birth time's nanoseconds, passed), so the fallback is never taken.
        (try? Bookmark.record(target, template: template.record, options: options, resourceKeys: [], relativeTo: nil))
            ?? template.record
    }

    /// The bytes, written by the template's plan and handed to `make` in place; `nil` without a plan.
    func data<R>(_ make: (UnsafeRawBufferPointer) -> R) throws(BookmarkError) -> R? {
        guard let plan = template.plan else { return nil }
        return try Self.data(target, options: options, plan: plan, memo: template.memo, make)
    }

    /// The bytes of `target`'s bookmark, written by its template's `plan` (or the ones `memo`,
    /// the same template's, kept for an equal target) and handed to `make` in place.
    static func data<R>(
        _ target: CreationTarget, options: BookmarkCreationOptions, plan: CreationPlan, memo: WrittenMemo,
        _ make: (UnsafeRawBufferPointer) -> R
    ) throws(BookmarkError) -> R {
        let keep: Bool
        switch memo.lookUp(target) {
        case .known(let bytes): return bytes.withUnsafeBytes(make)
        case .write(let shouldKeep): keep = shouldKeep
        }
        let facts = Bookmark.facts(target, options: options)
        return try BookmarkError.decoding(lastKnownPath: target.path) { () throws(BookmarkFormatError) -> R in
            try plan.write(facts) { written in
                if keep { memo.keep(Array(written), for: target) }
                return make(written)
            }
        }
    }
}
