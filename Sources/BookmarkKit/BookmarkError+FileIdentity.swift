// SPDX-License-Identifier: Apache-2.0
import FileIdentity

extension BookmarkError {
    /// Wraps an identity error.
    ///
    /// A failed call maps as its `FileSystemError` cause does (which becomes
    /// ``fileSystemError``). A mount missing from the mount table is `notFound`: the
    /// object's mount went away while it was being identified, so it is not reachable there. A
    /// volume that did not answer is `volumeNotResponding`, with its mount point. A malformed
    /// mount table is a `fileSystem` failure.
    init(_ error: FileIdentityError, lastKnownPath: [UInt8]? = nil) {
        if let cause = error.cause {
            self.init(cause, lastKnownPath: lastKnownPath)
            return
        }
        let code: Code
        switch error.code {
        case .notInMountTable: code = .notFound
        case .volumeNotResponding: code = .volumeNotResponding
        default: code = .fileSystem
        }
        self.init(code, error.description, lastKnownPath: lastKnownPath)
        mountPoint = error.mountPoint
    }
}
