"""Files every layer names: the default database, and file fingerprints (discover, the parser, evaluation)."""

from __future__ import annotations

import errno
import hashlib
import os
import stat

from ingest.contracts.errors import DiscoverError

#: The database `--db` means when not given: `ingest.db` in the working directory.
DEFAULT_DB = "ingest.db"

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of the file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def regular_file_fingerprint(path: str | os.PathLike) -> tuple[os.stat_result, str]:
    """(stat, hex SHA-256) of a regular file, or DiscoverError saying why the entry is not one.

    Never blocks and never reads anything but a regular file: the entry is stat'ed first (a
    FIFO, device or socket is refused without being opened, since opening a FIFO waits for a
    writer and `/dev/zero` never ends), then opened with O_NONBLOCK and checked again on the
    open descriptor, so an entry swapped between the two calls is refused too. Reasons name the
    fault an operator can fix: symlink loop, dangling symlink, permission denied, not a regular file.
    """
    name = os.fspath(path)
    try:
        info = os.stat(name)
        _require_regular(info, name)
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise DiscoverError(_os_reason(error, name), path=name) from None
    try:
        info = os.fstat(fd)
        _require_regular(info, name)
        digest = hashlib.sha256()
        while block := os.read(fd, 1 << 20):
            digest.update(block)
    except OSError as error:
        raise DiscoverError(_os_reason(error, name), path=name) from None
    finally:
        os.close(fd)
    return info, digest.hexdigest()


def _require_regular(info: os.stat_result, name: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise DiscoverError(f"not a regular file ({kind}); only regular files are read", path=name)


def _os_reason(error: OSError, name: str) -> str:
    """One line for an operator: what is wrong with the entry and how to fix it."""
    if error.errno == errno.ELOOP:
        return "symlink loop (too many levels of symbolic links); fix or delete the link"
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        if os.path.islink(name):
            return f"dangling symlink: its target {os.readlink(name)!r} does not exist; fix or delete the link"
        return "the file disappeared during discovery"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied: the run's user cannot read this file; fix its mode or owner"
    return f"cannot read: {error.strerror or error}"
