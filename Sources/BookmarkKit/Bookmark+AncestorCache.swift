// SPDX-License-Identifier: Apache-2.0
extension Bookmark {
    /// Empties the process's ancestor cache: the inode numbers of the directories above the
    /// objects bookmarks were made for, which creation records as per-component file IDs.
    ///
    /// The cache watches each directory with inotify and forgets everything when one is renamed,
    /// removed or replaced, or the mount table changes, so it never needs clearing for
    /// correctness, with one exception: a process that changes its root or mount namespace
    /// (`chroot`, `pivot_root`, `setns`, `unshare(CLONE_NEWNS)`) must call this afterwards.
    /// Clearing also removes the watches (each pins a directory's inode in kernel memory) and, if
    /// inotify had run out of watches or instances (`ENOSPC`, `EMFILE`) and creation had gone
    /// uncached for the rest of the process, lets it try again. A forked child never uses the
    /// parent's cache (it would read the parent's inotify queue) and creates uncached.
    ///
    /// Implementation details: `inotify_rm_watch` per watched directory (at most 4,096).
    public static func clearAncestorCache() {
        AncestorCache.shared.clear()
    }
}
