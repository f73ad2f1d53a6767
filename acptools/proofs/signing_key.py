"""The secret that authenticates proof-store rows, kept outside the store so that whoever can write
the store's file cannot forge a row that will be served.

Where the key comes from, first match wins:
- a key file given by the caller (`acptools cache --key-file`, `store.use(path, key_file=...)`);
- $ACPTOOLS_STORE_KEY_FILE: an operator's key for a store several users share;
- the per-user key <user config dir>/acptools/store.key ($XDG_CONFIG_HOME or ~/.config), created
  with mode 0600 on first use.
A key file that does not exist is created atomically (fully written before any process can read it);
one that others could read or replace is refused, since its secret would then not be a secret.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from ..errors import AcpError

KEY_BYTES = 32
MIN_KEY_CHARS = 32  # a hand-made operator key shorter than this is too easy to guess


def default_key_path() -> Path:
    """<user config dir>/acptools/store.key."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "acptools" / "store.key"


def load_key(key_file: str | os.PathLike | None = None) -> bytes:
    """The store key (created on first use); AcpError says why there is none."""
    chosen = key_file or os.environ.get("ACPTOOLS_STORE_KEY_FILE") or None
    path = Path(chosen) if chosen else default_key_path()
    shared = chosen is not None  # an operator's key may be readable by a group that shares the store
    try:
        if not path.exists():
            _create(path)
        return _read(path, shared)
    except OSError as e:
        raise AcpError(
            f"cannot read or create the proof store key {path}: {e.strerror or e}",
            "store key",
            "make the folder writable, or give a key file with ACPTOOLS_STORE_KEY_FILE",
        ) from None


def _create(path: Path) -> None:
    """Write a fresh random key to a private temporary file, then link it into place: a reader never
    sees a half-written key, and of two processes creating it at once, the first one's key wins."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(KEY_BYTES) + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made it first: use theirs
    finally:
        os.unlink(tmp)


def _read(path: Path, shared: bool) -> bytes:
    info = path.stat()
    exposed = stat.S_IRWXO | (0 if shared else stat.S_IRWXG)
    if info.st_mode & exposed or (not shared and info.st_uid != os.getuid()):
        raise AcpError(
            f"the proof store key {path} can be read or changed by other users (mode {stat.S_IMODE(info.st_mode):o})",
            "store key",
            f"chmod 600 {path} (or delete it: a new key is made, and rows written with the old one are proven again)",
        )
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    if len(text) < MIN_KEY_CHARS:
        raise AcpError(
            f"the proof store key {path} is too short ({len(text)} characters)",
            "store key",
            f"use at least {MIN_KEY_CHARS} random characters, e.g. `python -c 'import secrets; "
            f"print(secrets.token_hex(32))' > {path}`",
        )
    return text.encode("utf-8")
