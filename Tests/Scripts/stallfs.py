#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A FUSE file system that can be told to stop answering, for the dead-volume tests.

    stallfs.py BACKING MOUNTPOINT

Mirrors BACKING at MOUNTPOINT (type `fuse.stallfs`). While a file named `.stall` exists in
BACKING (created there directly, not through the mount), every request waits without answering,
as a dead sshfs or NFS server does; removing it lets them go on. While `.stall-open` exists, only
`open`, `read` and `readdir` wait: `statfs` and `stat` still answer (a volume that stops answering
between a check and a call). Kernel caching is off
(attr_timeout=0, entry_timeout=0, negative_timeout=0), so every lookup and stat reaches the daemon.

Killing the daemon (SIGKILL) aborts the connection: waiting calls fail with ENOTCONN, and the
mount must then be detached (`umount -l`). Needs Debian's python3-fusepy (module `fusepy`).
"""
import errno
import os
import sys
import time

try:
    import fusepy as fuse
except ImportError:  # PyPI's name for the same module
    import fuse


class StallFS(fuse.Operations):
    def __init__(self, backing):
        self.backing = os.path.realpath(backing)
        self.stall_marker = os.path.join(self.backing, ".stall")
        self.stall_open_marker = os.path.join(self.backing, ".stall-open")

    def _wait_while_stalled(self, op):
        while os.path.exists(self.stall_marker) or (
                op in ("open", "read", "readdir", "opendir") and os.path.exists(self.stall_open_marker)):
            time.sleep(0.05)

    def _full(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def __call__(self, op, path, *args):
        self._wait_while_stalled(op)
        try:
            return super().__call__(op, path, *args)
        except OSError as error:
            raise fuse.FuseOSError(error.errno or errno.EIO)

    def access(self, path, mode):
        if not os.access(self._full(path), mode):
            raise fuse.FuseOSError(errno.EACCES)

    def getattr(self, path, fh=None):
        st = os.lstat(self._full(path))
        keys = ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime", "st_ino")
        return {key: getattr(st, key) for key in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._full(path))

    def readlink(self, path):
        return os.readlink(self._full(path))

    def statfs(self, path):
        st = os.statvfs(self._full(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
                "f_frsize", "f_namemax")
        return {key: getattr(st, key) for key in keys}

    def open(self, path, flags):
        return os.open(self._full(path), flags)

    def create(self, path, mode, fi=None):
        return os.open(self._full(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        os.truncate(self._full(path), length)

    def flush(self, path, fh):
        return None

    def fsync(self, path, datasync, fh):
        os.fsync(fh)

    def release(self, path, fh):
        os.close(fh)

    def unlink(self, path):
        os.unlink(self._full(path))

    def mkdir(self, path, mode):
        os.mkdir(self._full(path), mode)

    def rmdir(self, path):
        os.rmdir(self._full(path))

    def rename(self, old, new):
        os.rename(self._full(old), self._full(new))

    def symlink(self, target, source):
        os.symlink(source, self._full(target))

    def chmod(self, path, mode):
        os.chmod(self._full(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self._full(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self._full(path), times)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 64
    backing, mountpoint = sys.argv[1], sys.argv[2]
    fuse.FUSE(StallFS(backing), mountpoint, foreground=True, nothreads=False, fsname="stallfs",
              subtype="stallfs", allow_other=True, default_permissions=True, attr_timeout=0, entry_timeout=0,
              negative_timeout=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
