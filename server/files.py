"""Reading a file below ``--root`` without a race: every path component is opened relative to the
directory descriptor of its parent with ``O_NOFOLLOW``, so no component can be swapped for a link
between a check and the read. Symbolic links inside the root are followed here, one component at a
time by the same rule, and a link that leads out of the root is refused.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import PurePosixPath

from acptools_server.config import PathAccessError

MAX_LINKS = 40  # symbolic links followed in one path (the kernel's own limit)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO must not block the open


def _parts(path: str, root: str, shown: str) -> list[str]:
    """The components of ``path`` relative to ``root`` (an absolute path must lie lexically below it)."""
    p = PurePosixPath(path)
    if p.is_absolute():
        try:
            p = p.relative_to(root)
        except ValueError:
            raise PathAccessError(f"path {shown!r} is outside the allowed root directory {root!r}") from None
    return [part for part in p.parts if part not in ("", ".")]


def open_below_root(path: str, root: str) -> int:
    """A read-only descriptor of the regular file ``path`` (relative to ``root``, or absolute below it).

    Raises :class:`PathAccessError` for a path outside the root (also through links), a missing file,
    or anything that is not a regular file.
    """
    shown = path
    if "\x00" in path:
        raise PathAccessError("path must not contain NUL characters")
    if path.startswith("~"):
        path = os.path.expanduser(path)
    pending = _parts(path, root, shown)
    if not pending:
        raise PathAccessError(f"path {shown!r} names the root directory itself, not a file")
    dirs = [os.open(root, _DIR_FLAGS)]  # descriptors from the root down to the current directory
    links = 0
    try:
        while pending:
            name = pending.pop(0)
            if name == "..":
                if len(dirs) == 1:
                    raise PathAccessError(f"path {shown!r} is outside the allowed root directory {root!r}")
                os.close(dirs.pop())
                continue
            try:
                fd = os.open(name, _DIR_FLAGS if pending else _FILE_FLAGS, dir_fd=dirs[-1])
            except OSError as exc:
                target = _link_target(name, dirs[-1], exc, shown)
                links += 1
                if links > MAX_LINKS:
                    raise PathAccessError(f"path {shown!r} goes through more than {MAX_LINKS} symbolic links") from None
                if target is None:  # the link was replaced between the open and reading it: open it again
                    pending.insert(0, name)
                    continue
                if target.startswith("/"):
                    while len(dirs) > 1:
                        os.close(dirs.pop())
                pending = _parts(target, root, shown) + pending
                continue
            if not pending:
                return _regular_file(fd, shown)
            dirs.append(fd)
        raise PathAccessError(f"path {shown!r} names a directory, not a file")
    finally:
        for fd in dirs:
            os.close(fd)


def _link_target(name: str, dir_fd: int, exc: OSError, shown: str) -> str | None:
    """The target of the link ``name`` that ``exc`` stopped at (None: ``name`` is no longer a link, it
    changed since the open); other failures become clear errors."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        try:
            return os.readlink(name, dir_fd=dir_fd)
        except OSError as again:
            if again.errno == errno.EINVAL and exc.errno != errno.ENOTDIR:
                return None
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        raise PathAccessError(f"no such file below the root: {shown!r}") from None
    raise PathAccessError(f"cannot open {shown!r}: {os.strerror(exc.errno or 0)}") from None


def _regular_file(fd: int, shown: str) -> int:
    if stat.S_ISREG(os.fstat(fd).st_mode):
        os.set_blocking(fd, True)
        return fd
    os.close(fd)
    raise PathAccessError(f"path {shown!r} is not a regular file")


def read_below_root(path: str, root: str, max_bytes: int, arg: str) -> str:
    """The UTF-8 text of a file below ``root``, at most ``max_bytes`` bytes (errors name ``arg``)."""
    try:
        fd = open_below_root(path, root)
    except PathAccessError as exc:
        raise PathAccessError(f"{arg}: {exc}") from None
    with os.fdopen(fd, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise PathAccessError(
            f"{arg}: file {path!r} has more than {max_bytes} bytes, more than the server accepts; "
            "start the server with a larger --max-pddl-bytes"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PathAccessError(f"{arg}: file {path!r} is not UTF-8 text (byte {exc.start})") from None
