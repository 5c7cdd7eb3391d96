// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import SecureFiles
import SystemPackage

/// The folders of the files a batch rewrites in place (`refresh`, `resolve --refresh`) while its
/// records are held back: each file is rewritten without its folder's `fsync`, and every folder
/// written into is synced once before held-back records are written
/// (``Output/beforeRecordsLeave(_:during:)``), as ``OutputFolderSync`` does for `make
/// --output-dir`. So no record says `refreshed` before the new name would survive a power
/// failure, with one folder `fsync` per 64 KiB of records instead of one per file.
///
/// Not used when stdout is a terminal (each record is printed at once, so each file syncs its
/// folder as before); a folder that cannot be opened, or one past ``limit`` open folders, is
/// left to each file's own sync.
final class RewrittenFolders: Sendable {
    private struct State {
        /// The folders opened, by the path their files were named with.
        var open: [PathBytes: OwnedDescriptor] = [:]
        /// Folders that could not be opened (each file there syncs its folder itself).
        var unopenable: Set<PathBytes> = []
        /// Folders written into since their last sync.
        var unsynced: Set<PathBytes> = []
        var failure: (folder: PathBytes, error: FileSystemError)?
    }
    private let state = Locked(State())
    /// Most folders held open at once: a batch spread over more folders syncs the rest per file.
    static let limit = 256

    /// Whether the file at `path` may be rewritten without syncing its folder: records are held
    /// back (inside ``during(_:)``, stdout not a terminal) and the folder is open here (opened
    /// now, the first time). Call ``wrote(_:)`` after the rewrite.
    func defersSync(for path: PathBytes) -> Bool {
        guard Output.holdsBack else { return false }
        let folder = path.parent
        return state.withLock { state in
            if state.open[folder] != nil { return true }
            guard !state.unopenable.contains(folder), state.open.count < Self.limit else { return false }
            guard let opened = try? Directory.current.open(folder.filePath, options: [.readOnly, .directory]) else {
                state.unopenable.insert(folder)
                return false
            }
            state.open[folder] = opened
            return true
        }
    }

    /// The file at `path` was rewritten without its folder sync (renamed into place, not yet durable).
    func wrote(_ path: PathBytes) {
        let folder = path.parent
        state.withLock { if $0.open[folder] != nil { $0.unsynced.insert(folder) } }
    }

    /// Syncs each folder written into since its last sync; a failure is kept for the end of the
    /// batch (the records are written anyway: they are true, only not yet durable).
    func syncIfNeeded() {
        state.withLock { state in
            for folder in state.unsynced {
                guard let directory = state.open[folder] else { continue }
                do throws(FileSystemError) {
                    try directory.synchronize()
                } catch {
                    if state.failure == nil { state.failure = (folder, error) }
                }
            }
            state.unsynced = []
        }
    }

    /// Says on stderr that a folder could not be synced, if one could not; whether one could not.
    func reportFailure() -> Bool {
        guard let failure = state.withLock({ $0.failure }) else { return false }
        Output.error("\(failure.folder.escaped): the folder could not be synced, so the files rewritten there may not "
            + "survive a power failure: \(failure.error)")
        return true
    }

    /// Runs `body`, a batch of rewrites, with its records held back (``Output/buffered(_:)``),
    /// dead writers' leftovers swept once per folder (not once per rewrite, which read the whole
    /// folder each time: quadratic in a folder of many bookmarks), and the folders synced before
    /// records leave; at the end, what is left unsynced (when stdout failed, no record left).
    func during<T>(_ body: () throws -> T) rethrows -> T {
        defer { syncIfNeeded() }
        return try Output.beforeRecordsLeave({ self.syncIfNeeded() }) {
            try Output.buffered {
                try LeftoverSweeping.oncePerDirectory { try body() }
            }
        }
    }
}
