// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Descriptors 0, 1 and 2 held open for the whole run, even when the caller closed them
/// (`bookmark resolve X >&-`).
///
/// A closed standard descriptor is the lowest free number, so the first file this process opens
/// (the mount table, a SOURCE, a bookmark being written) would get it, and a record "written to
/// stdout" would go into that file. Each closed one is given `/dev/null`, opened so that its use
/// fails: stdout and stderr read-only (a write fails with `EBADF`: stdout's failure is reported
/// and the run exits 1, as for a full disk), stdin write-only (a read fails: `-` cannot be read,
/// exit 66). A descriptor that is open is left as it is.
enum StandardDescriptors {
    /// Fills 0, 1 and 2 where they are closed; call first thing. (Not close-on-exec: a child
    /// process started later gets the same placeholders, not free numbers.)
    static func holdClosedOnes() {
        for descriptor in CInt(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number is this one: 0, 1 and 2 are filled in order.
            let placeholder = open("/dev/null", (descriptor == 0 ? O_WRONLY : O_RDONLY))
            if placeholder >= 0, placeholder != descriptor { close(placeholder) }
        }
    }
}
