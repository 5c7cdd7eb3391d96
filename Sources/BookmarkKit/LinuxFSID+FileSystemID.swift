// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import SecureFiles

extension LinuxFSID {
    /// The fsid as a bookmark stores it: the same two words, in the kernel's order (BookmarkFormat
    /// imports nothing, so the conversion lives here).
    init(_ fsid: FileSystemID) {
        self.init(fsid.val0, fsid.val1)
    }
}
