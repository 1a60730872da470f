#!/usr/bin/python3
"""A case-insensitive, case-preserving, normalisation-insensitive file system for tests.

Usage (root, /dev/fuse, Debian packages python3-fusepy and fuse):

    scripts/casefold_fs.py BACKING_DIR MOUNT_POINT &

Mounts BACKING_DIR at MOUNT_POINT (FUSE, foreground) so that, as on macOS (APFS) or Windows
(NTFS), a name opens an existing entry whose name equals it after NFD, lower-casing and NFC
(`README.md` opens `readme.md`, `cafe\u0301.txt` opens `caf\u00e9.txt`), and a new entry keeps
the spelling it was created with. Renaming an entry to another spelling of its own name changes
the spelling. Unmount with `fusermount -u MOUNT_POINT`.

Used to prove that a case-only rename applies without losing the file on such a file system
(tests/case_only_rename.rs, `GENESIS_CASEFOLD_DIR`), where the kernel has no CONFIG_UNICODE
(so neither `tmpfs -o casefold` nor an ext4 `-O casefold` image can be mounted).
"""

import errno
import os
import sys
import unicodedata

from fusepy import FUSE, FuseOSError, Operations


def fold(name):
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).lower())


class CaseFold(Operations):
    def __init__(self, root):
        self.root = os.path.realpath(root)

    def _real(self, path):
        """The backing path: each component matched case-insensitively if it exists."""
        cur = self.root
        for comp in [c for c in path.split("/") if c]:
            try:
                names = os.listdir(cur)
            except OSError:
                names = []
            if comp in names:
                cur = os.path.join(cur, comp)
                continue
            key = fold(comp)
            match = [n for n in names if fold(n) == key]
            cur = os.path.join(cur, match[0] if match else comp)
        return cur

    def _new(self, path):
        """The backing path for creating `path`: the parent resolved, the name as given, unless
        an entry of another spelling exists (then that one, as the file system would)."""
        parent, name = os.path.split(path.rstrip("/"))
        real_parent = self._real(parent)
        try:
            names = os.listdir(real_parent)
        except OSError:
            names = []
        match = [n for n in names if fold(n) == fold(name)]
        return os.path.join(real_parent, match[0] if match else name)

    def access(self, path, mode):
        if not os.access(self._real(path), mode):
            raise FuseOSError(errno.EACCES)

    def chmod(self, path, mode):
        return os.chmod(self._real(path), mode)

    def chown(self, path, uid, gid):
        return os.chown(self._real(path), uid, gid)

    def getattr(self, path, fh=None):
        st = os.lstat(self._real(path))
        keys = ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink",
                "st_size", "st_uid", "st_ino")
        out = {k: getattr(st, k) for k in keys}
        for k in ("st_atime", "st_ctime", "st_mtime"):
            out[k] = getattr(st, k + "_ns") / 1e9
        return out

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._real(path))

    def readlink(self, path):
        return os.readlink(self._real(path))

    def mknod(self, path, mode, dev):
        return os.mknod(self._new(path), mode, dev)

    def rmdir(self, path):
        return os.rmdir(self._real(path))

    def mkdir(self, path, mode):
        target = self._new(path)
        if os.path.lexists(target):
            raise FuseOSError(errno.EEXIST)
        return os.mkdir(target, mode)

    def statfs(self, path):
        stv = os.statvfs(self._real(path))
        return {k: getattr(stv, k) for k in (
            "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files",
            "f_flag", "f_frsize", "f_namemax")}

    def unlink(self, path):
        return os.unlink(self._real(path))

    def symlink(self, name, target):
        return os.symlink(target, self._new(name))

    def rename(self, old, new):
        src = self._real(old)
        dst = self._new(new)
        if dst == src and os.path.basename(new.rstrip("/")) != os.path.basename(src):
            # Another spelling of the same entry: change the spelling.
            dst = os.path.join(os.path.dirname(src), os.path.basename(new.rstrip("/")))
        return os.rename(src, dst)

    def link(self, target, name):
        return os.link(self._real(name), self._new(target))

    def utimens(self, path, times=None):
        return os.utime(self._real(path), times)

    def open(self, path, flags):
        return os.open(self._real(path), flags)

    def create(self, path, mode, fi=None):
        return os.open(self._new(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def read(self, path, length, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.read(fh, length)

    def write(self, path, buf, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.write(fh, buf)

    def truncate(self, path, length, fh=None):
        with open(self._real(path), "r+") as f:
            f.truncate(length)

    def flush(self, path, fh):
        return os.fsync(fh)

    def release(self, path, fh):
        return os.close(fh)

    def fsync(self, path, fdatasync, fh):
        return os.fsync(fh)

    def fsyncdir(self, path, datasync, fh):
        return 0


if __name__ == "__main__":
    # use_ino: report the backing inode numbers, so two spellings of one entry show one inode,
    # as on a real case-insensitive file system.
    # entry/attr/negative_timeout=0: the kernel caches no name. Its name cache compares bytes,
    # so a cached `dir/a.txt` (an alias of `Dir/a.txt`) would outlive the unlink of
    # `Dir/a.txt` for up to a second and still answer stat; a real case-insensitive file system
    # compares names case-insensitively in that cache and never serves such a stale alias.
    FUSE(CaseFold(sys.argv[1]), sys.argv[2], foreground=True, nothreads=True, use_ino=True,
         allow_other=False, entry_timeout=0, attr_timeout=0, negative_timeout=0)
