"""A persistent proof store: truths proven once, read back by every later run.

Proven facts about a state (h* and an optimal plan, single reach/landmark verdicts with their
proofs or witnesses, complete lists) are kept in an SQLite file, keyed by the content hash of the
task's PDDL, the state and the fact. `unknown` is never stored. Rows carry the engine version
(an upgrade never reads old truths) and a checksum; a file that is not ours, or damaged, is
reported once and bypassed, never trusted. WAL mode lets several processes share one file.

    from acptools import store
    store.use()                  # the default file in the user's cache directory
    store.use("proofs.sqlite")   # or a given file; store.use(None) turns it off
    store.active()               # the ProofStore in use, or None

The environment variable ACPTOOLS_CACHE (a path, or "off") sets what `use()` opens by default.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import sqlite3
import threading
from pathlib import Path

ENGINE_VERSION = "acptools-proofs-1"  # bump when an engine may prove something different
APPLICATION_ID = 0x41435054           # 'ACPT': marks the file as ours
log = logging.getLogger("acptools.store")


def default_path() -> Path | None:
    """ACPTOOLS_CACHE, or <user cache dir>/acptools/proofs.sqlite; None when set to 'off'."""
    env = os.environ.get("ACPTOOLS_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "acptools" / "proofs.sqlite"


def _checksum(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


class ProofStore:
    """One SQLite file of proven facts (a connection per thread; writes are small transactions)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._local = threading.local()
        self.broken = ""
        self.hits = self.misses = self.writes = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._setup(self._connection())
        except (sqlite3.Error, OSError) as e:
            self._fail(f"cannot use {self.path}: {e}")

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (a forked worker process opens its own: SQLite connections
        must not cross a fork)."""
        if getattr(self._local, "pid", None) != os.getpid():
            self._local.conn, self._local.pid = None, os.getpid()
        conn = self._local.conn
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA busy_timeout = 30000")
            self._local.conn = conn
        return conn

    def _setup(self, conn: sqlite3.Connection) -> None:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app not in (0, APPLICATION_ID) or (app == 0 and tables):
            raise sqlite3.DatabaseError("the file is not an acptools proof store")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if app == 0:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("CREATE TABLE IF NOT EXISTS facts (version TEXT, task TEXT, state TEXT, kind TEXT, key TEXT, "
                     "value TEXT, checksum TEXT, PRIMARY KEY (version, task, state, kind, key))")
        conn.execute("CREATE TABLE IF NOT EXISTS tasks (task TEXT PRIMARY KEY, domain TEXT, problem TEXT)")
        conn.execute("CREATE TABLE IF NOT EXISTS states (task TEXT, state TEXT, atoms TEXT, PRIMARY KEY (task, state))")

    def _fail(self, why: str) -> None:
        if not self.broken:
            log.warning("proof store bypassed: %s", why)
        self.broken = why

    # ---- facts --------------------------------------------------------------------------------
    def get(self, task: str, state: str, kind: str, key: str = "") -> dict | None:
        """A stored fact, or None (also for a row whose checksum does not match: never trusted)."""
        if self.broken:
            return None
        try:
            row = self._connection().execute(
                "SELECT value, checksum FROM facts WHERE version = ? AND task = ? AND state = ? AND kind = ? "
                "AND key = ?", (ENGINE_VERSION, task, state, kind, key)).fetchone()
        except sqlite3.Error as e:
            self._fail(str(e))
            return None
        if row is None:
            self.misses += 1
            return None
        value, checksum = row
        if checksum != _checksum(ENGINE_VERSION, task, state, kind, key, value):
            self._fail(f"a damaged row in {self.path} ({kind} {key!r})")
            return None
        self.hits += 1
        try:
            return json.loads(value)
        except ValueError:
            return None

    def put(self, task: str, state: str, kind: str, key: str, value: dict) -> None:
        """Store a proven fact (callers never store unknowns)."""
        if self.broken:
            return
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
        try:
            self._connection().execute(
                "INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ENGINE_VERSION, task, state, kind, key, text, _checksum(ENGINE_VERSION, task, state, kind, key, text)))
            self.writes += 1
        except sqlite3.Error as e:
            self._fail(str(e))

    def remember_task(self, task: str, domain_text: str, problem_text: str) -> None:
        """Keep a task's PDDL, so `verify` can prove its facts again."""
        if self.broken:
            return
        try:
            self._connection().execute("INSERT OR IGNORE INTO tasks VALUES (?, ?, ?)", (task, domain_text, problem_text))
        except sqlite3.Error as e:
            self._fail(str(e))

    def remember_state(self, task: str, state: str, atoms: list[str]) -> None:
        """Keep a state's atoms, so `verify` can rebuild it."""
        if self.broken:
            return
        try:
            self._connection().execute("INSERT OR IGNORE INTO states VALUES (?, ?, ?)", (task, state, json.dumps(atoms)))
        except sqlite3.Error as e:
            self._fail(str(e))

    def state_atoms(self, task: str, state: str) -> list[str] | None:
        row = self._connection().execute("SELECT atoms FROM states WHERE task = ? AND state = ?",
                                         (task, state)).fetchone()
        return None if row is None else json.loads(row[0])

    # ---- moving facts between stores (workers on other machines) -----------------------------
    def export(self, task: str) -> dict:
        """Everything known about one task: its PDDL, states and current-version facts."""
        if self.broken:
            return {}
        conn = self._connection()
        texts = self.task_texts(task)
        return {"task": task, "texts": texts,
                "states": conn.execute("SELECT state, atoms FROM states WHERE task = ?", (task,)).fetchall(),
                "facts": [(st, k, key, json.loads(v)) for st, k, key, v in conn.execute(
                    "SELECT state, kind, key, value FROM facts WHERE version = ? AND task = ?",
                    (ENGINE_VERSION, task))]}

    def merge(self, exported: dict) -> None:
        """Add what `export` gave (from another store): PDDL, states and facts."""
        if self.broken or not exported:
            return
        task = exported["task"]
        if exported.get("texts"):
            self.remember_task(task, *exported["texts"])
        for state, atoms in exported.get("states", ()):
            self.remember_state(task, state, json.loads(atoms) if isinstance(atoms, str) else atoms)
        for state, kind, key, value in exported.get("facts", ()):
            self.put(task, state, kind, key, value)

    # ---- maintenance --------------------------------------------------------------------------
    def stats(self) -> dict:
        """Rows by engine version and kind, tasks kept, the file's size."""
        out = {"path": str(self.path), "broken": self.broken, "engine_version": ENGINE_VERSION}
        if self.broken:
            return out
        conn = self._connection()
        out["facts"] = {f"{v} {k}": n for v, k, n in
                        conn.execute("SELECT version, kind, COUNT(*) FROM facts GROUP BY version, kind")}
        out["tasks"] = conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        out["bytes"] = self.path.stat().st_size if self.path.exists() else 0
        return out

    def sample(self, n: int, seed: int = 0) -> list[tuple]:
        """Up to `n` random current-version facts whose task is kept: (task, state, kind, key, value)."""
        rows = self._connection().execute(
            "SELECT f.task, f.state, f.kind, f.key, f.value FROM facts f JOIN tasks t ON f.task = t.task "
            "WHERE f.version = ?", (ENGINE_VERSION,)).fetchall()
        random.Random(seed).shuffle(rows)
        return [(t, s, k, key, json.loads(v)) for t, s, k, key, v in rows[:n]]

    def task_texts(self, task: str) -> tuple[str, str] | None:
        row = self._connection().execute("SELECT domain, problem FROM tasks WHERE task = ?", (task,)).fetchone()
        return None if row is None else (row[0], row[1])

    def clear(self) -> int:
        """Remove every fact and task; returns how many facts there were."""
        conn = self._connection()
        n = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
        conn.execute("DELETE FROM facts")
        conn.execute("DELETE FROM tasks")
        conn.execute("DELETE FROM states")
        conn.execute("VACUUM")
        return n


_active: ProofStore | None = None
_lock = threading.Lock()


def use(path: "str | os.PathLike | None" = "default") -> ProofStore | None:
    """Open the store every truth computation reads and writes ("default": see default_path();
    None: no store). Returns it (None when off)."""
    global _active
    with _lock:
        chosen = default_path() if path == "default" else (None if path is None else Path(path))
        _active = None if chosen is None else ProofStore(chosen)
        return _active


def active() -> ProofStore | None:
    return _active
