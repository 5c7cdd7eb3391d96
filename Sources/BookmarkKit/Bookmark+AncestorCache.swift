// SPDX-License-Identifier: Apache-2.0
extension Bookmark {
    /// Empties the process's ancestor cache: the inode numbers of the directories above the
    /// objects bookmarks were made for, which creation records as per-component file IDs.
    ///
    /// The cache watches a directory with inotify from the second time a creation meets it (the
    /// first meeting examines it with one `statx` and watches nothing) and forgets everything when
    /// a watched directory is renamed, removed or replaced, or the mount table changes, so it
    /// never needs clearing for correctness, with one exception: a process that changes its root
    /// or mount namespace (`chroot`, `pivot_root`, `setns`, `unshare(CLONE_NEWNS)`) must call this
    /// afterwards. Clearing also removes the watches (each pins a directory's inode in kernel
    /// memory), forgets which directories were met (the next creation meeting one examines it
    /// without watching it) and, if inotify had run out of watches or instances (`ENOSPC`,
    /// `EMFILE`) and creation had gone uncached for the rest of the process, lets it try again. A
    /// forked child never uses the parent's cache (it would read the parent's inotify queue) and
    /// creates uncached.
    ///
    /// The directories from `/` down to a volume's mount point are not part of this cache: they
    /// are examined once per mount with the volume's other facts (the `MountedVolumes` in use,
    /// the process's shared one by default) and stay known after clearing.
    ///
    /// Implementation details: `inotify_rm_watch` per watched directory (at most 4,096); none
    /// for directories met only once.
    public static func clearAncestorCache() {
        AncestorCache.shared.clear()
    }
}
