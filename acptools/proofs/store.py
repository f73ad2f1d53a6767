"""A persistent proof store: truths proven once, read back by every later run.

Proven facts about a state (h* and an optimal plan, single reach/landmark verdicts with their
proofs or witnesses, complete lists) are kept in an SQLite file, keyed by the content hash of the
task's PDDL, the state and the fact. `unknown` is never stored. WAL mode lets several processes
share one file.

Whoever can write the file must not be able to make a wrong answer be served. So every row carries
an HMAC-SHA256 of its whole content (engine version, task, state, question, verdict, witness) under
a key that is not in the file (acptools.proofs.signing_key: a per-user key file made 0600 beside the user's
config, or an operator's key for a shared store). A row that does not authenticate is bypassed and
counted (`stats()["bypassed"]`), never served; the truth service (acptools.truth) also replays
every stored witness against the task before serving it (acptools.proofs.row_checks). Rows of another engine version are
ignored (an upgrade never reads old truths). A file that is not ours, or damaged, is reported once and bypassed. The
same file keeps graded answers (acptools.proofs.grade_memo: `get_grades`/`put_grade`), under the same rules. A file (or
folder) this process may not write is read, and nothing new is stored in it.

    from acptools.proofs import store
    store.use()                  # the default file in the user's cache directory
    store.use("proofs.sqlite")   # or a given file; store.use(None) turns it off
    store.active()               # the ProofStore in use, or None

The environment variable ACPTOOLS_CACHE (a path, or "off") sets what `use()` opens by default, and
ACPTOOLS_STORE_KEY_FILE the key file.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import os
import random
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from ..errors import AcpError
from .signing_key import load_key

ENGINE_VERSION = "acptools-proofs-4"  # bump when an engine may prove something different, or rows change form
APPLICATION_ID = 0x41435054  # 'ACPT': marks the file as ours
GRADES_PER_QUERY = 500  # keys per query of get_grades (SQLite allows 999 parameters)
GRADE_KIND = "grade-memo"  # the kind a stored grade's MAC names (no fact row has it)
GROUNDED_KIND = "grounded-task"  # the kind a kept grounded task's MAC names (acptools.proofs.kept_tasks)
log = logging.getLogger("acptools.proofs.store")


def default_path() -> Path | None:
    """ACPTOOLS_CACHE, or <user cache dir>/acptools/proofs.sqlite; None when set to 'off'."""
    env = os.environ.get("ACPTOOLS_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "acptools" / "proofs.sqlite"


def state_key(atom_names: list[str]) -> str:
    """A state's key in the store: its sorted atom names hashed, so it does not depend on how a run
    numbered the atoms."""
    return hashlib.sha256("\n".join(atom_names).encode()).hexdigest()[:32]


def row_mac(key: bytes, version: str, task: str, state: str, kind: str, name: str, value: str) -> str:
    """HMAC-SHA256 of a row's content, each part prefixed by its length in bytes (so no two rows share
    one message; cheaper than encoding the parts as JSON, which a warm run pays on every lookup)."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for part in (version, task, state, kind, name, value):
        data = part.encode("utf-8", "surrogatepass")
        mac.update(b"%d:" % len(data))
        mac.update(data)
    return mac.hexdigest()


def _maintenance(method):
    """A maintenance call on a damaged file says so in one line (an AcpError), never a traceback."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as e:
            raise AcpError(
                f"the proof store {self.path} is damaged or unreadable: {e}",
                "proof store",
                "delete the file (a new one is made on the next run)",
            ) from None

    return run


class ProofStore:
    """One SQLite file of proven facts (a connection per thread; writes are small transactions).
    `key` (bytes) authenticates rows; without it the key comes from `key_file` or acptools.proofs.signing_key."""

    def __init__(self, path: str | os.PathLike, key: bytes | None = None, key_file: str | os.PathLike | None = None):
        self.path = Path(path)
        self._local = threading.local()
        self.broken = ""
        self.readonly = False
        self.hits = self.misses = self.writes = self.bypassed = self.cleared_grades = 0
        self._key = b""
        try:
            self._key = key or load_key(key_file)
            self.readonly = self._read_only()
            try:
                self._setup(self._connection())
            except sqlite3.OperationalError as e:  # e.g. a read-only mount that access() does not see
                if self.readonly or "readonly" not in str(e):
                    raise
                self.close()
                self.readonly = True
                self._setup(self._connection())
        except AcpError as e:
            self._fail(str(e))
        except (sqlite3.Error, OSError) as e:
            self._fail(f"cannot use {self.path}: {e}")
        if self.readonly and not self.broken:
            log.warning("the proof store %s is read-only here: its proofs are read, new ones are not kept", self.path)

    def _read_only(self) -> bool:
        """May this process not write the file (or, for WAL's side files, its folder)?"""
        if self.path.exists():
            return not (os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return False

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (a forked worker process opens its own: SQLite connections
        must not cross a fork)."""
        if getattr(self._local, "pid", None) != os.getpid():
            self._local.conn, self._local.pid = None, os.getpid()
        conn = self._local.conn
        if conn is None:
            conn = self._open()
            conn.execute("PRAGMA busy_timeout = 30000")
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        if not self.readonly:
            return sqlite3.connect(self.path, timeout=30, isolation_level=None)
        uri = "file:" + quote(str(self.path.resolve()))
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=30, isolation_level=None)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:  # WAL's shared-memory file cannot be made here: read the file as it is
            conn.close()
            return sqlite3.connect(uri + "?immutable=1", uri=True, timeout=30, isolation_level=None)

    def _setup(self, conn: sqlite3.Connection) -> None:
        """Check that the file is a proof store (or empty) and make its tables: in one write
        transaction, so processes opening a new file at once see it either empty or complete."""
        if self.readonly:
            app, tables = self._kind(conn)
            if not {"facts", "tasks", "states"} <= tables:
                wal = Path(f"{self.path}-wal")
                raise sqlite3.DatabaseError(
                    "a read-only file whose tables are still in its write-ahead log (which needs write access to "
                    "the folder to be read)"
                    if wal.exists() and wal.stat().st_size
                    else "a read-only file that is not (yet) an acptools proof store"
                )
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            app, _ = self._kind(conn)
            if app == 0:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS facts (version TEXT, task TEXT, state TEXT, kind TEXT, "
                "key TEXT, value TEXT, checksum TEXT, PRIMARY KEY (version, task, state, kind, key))"
            )
            conn.execute("CREATE TABLE IF NOT EXISTS tasks (task TEXT PRIMARY KEY, domain TEXT, problem TEXT)")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS states (task TEXT, state TEXT, atoms TEXT, PRIMARY KEY (task, state))"
            )
            conn.execute(
                "CREATE TABLE IF NOT EXISTS grades (version TEXT, key TEXT, task TEXT, value TEXT, "
                "checksum TEXT, PRIMARY KEY (version, key))"
            )
            conn.execute(
                "CREATE TABLE IF NOT EXISTS grounded (version TEXT, task TEXT, blob BLOB, checksum TEXT, "
                "PRIMARY KEY (version, task))"
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")

    @staticmethod
    def _kind(conn: sqlite3.Connection) -> tuple[int, set[str]]:
        """The file's application id and tables; an error unless it is a proof store or empty."""
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app not in (0, APPLICATION_ID) or (app == 0 and tables):
            raise sqlite3.DatabaseError("the file is not an acptools proof store")
        return app, tables

    def _fail(self, why: str) -> None:
        if not self.broken:
            log.warning("proof store bypassed: %s", why)
        self.broken = why

    def authentic(self, task: str, state: str, kind: str, key: str, value: str, mac: str) -> bool:
        """Was this current-version row written by someone holding this store's key?"""
        expected = row_mac(self._key, ENGINE_VERSION, task, state, kind, key, value)
        return isinstance(mac, str) and hmac.compare_digest(mac, expected)

    def bypass(self, kind: str, key: str, why: str) -> None:
        """Count a row that is not served (the first one of a store is logged)."""
        if not self.bypassed:
            log.warning("proof store %s: a row that fails its check is bypassed (%s %r: %s)", self.path, kind, key, why)
        self.bypassed += 1

    # ---- facts --------------------------------------------------------------------------------
    def get(self, task: str, state: str, kind: str, key: str = "") -> dict | None:
        """A stored fact, or None (also for a row that does not authenticate: never served)."""
        row = self._read(
            "SELECT ?, value, checksum FROM facts WHERE version = ? AND task = ? AND state = ? "
            "AND kind = ? AND key = ?",
            (task, ENGINE_VERSION, task, state, kind, key),
        )
        return self._served(row, state, kind, key)

    def _read(self, sql: str, params: tuple) -> tuple | None:
        """One row, or None (also when the file cannot be read: the store is then bypassed)."""
        rows = self._read_all(sql, params)
        return rows[0] if rows else None

    def _read_all(self, sql: str, params: tuple) -> list[tuple]:
        """Every row of a query, or [] (also when the file cannot be read: the store is then bypassed)."""
        if self.broken:
            return []
        try:
            return self._connection().execute(sql, params).fetchall()
        except sqlite3.OperationalError as e:
            if "no such table" in str(e):  # a read-only file made before that table was kept
                return []
            self._fail(str(e))
        except sqlite3.Error as e:
            self._fail(str(e))
        return []

    def _served(self, row: tuple | None, state: str, kind: str, key: str) -> dict | None:
        """The JSON object of a (task, value, checksum) row that authenticates, else None (counted)."""
        if row is None:
            self.misses += 1
            return None
        task, value, mac = row
        if not (
            isinstance(task, str) and isinstance(value, str) and self.authentic(task, state, kind, key, value, mac)
        ):
            self.bypass(kind, key, "not authenticated by this store's key")
            return None
        try:
            found = json.loads(value)
        except ValueError:
            found = None
        if not isinstance(found, dict):
            self.bypass(kind, key, "not a stored fact")
            return None
        self.hits += 1
        return found

    def put(self, task: str, state: str, kind: str, key: str, value: dict) -> None:
        """Store a proven fact (callers never store unknowns)."""
        if self.broken or self.readonly:
            return
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
        mac = row_mac(self._key, ENGINE_VERSION, task, state, kind, key, text)
        try:
            self._connection().execute(
                "INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ENGINE_VERSION, task, state, kind, key, text, mac),
            )
            self.writes += 1
        except sqlite3.Error as e:
            self._fail(str(e))

    def remember_task(self, task: str, domain_text: str, problem_text: str) -> None:
        """Keep a task's PDDL, so `verify` can prove its facts again (it checks the text hashes to `task`)."""
        self._keep("INSERT OR IGNORE INTO tasks VALUES (?, ?, ?)", (task, domain_text, problem_text))

    def remember_state(self, task: str, state: str, atoms: list[str]) -> None:
        """Keep a state's atoms, so `verify` can rebuild it (it checks they hash to `state`)."""
        self._keep("INSERT OR IGNORE INTO states VALUES (?, ?, ?)", (task, state, json.dumps(atoms)))

    def _keep(self, sql: str, params: tuple) -> None:
        if self.broken or self.readonly:
            return
        try:
            self._connection().execute(sql, params)
        except sqlite3.Error as e:
            self._fail(str(e))

    @_maintenance
    def state_atoms(self, task: str, state: str) -> list[str] | None:
        """The atoms of a stored state, or None when it is not stored (or the row is malformed)."""
        row = (
            self._connection()
            .execute("SELECT atoms FROM states WHERE task = ? AND state = ?", (task, state))
            .fetchone()
        )
        try:
            atoms = None if row is None else json.loads(row[0])
        except (TypeError, ValueError):
            return None
        return atoms if isinstance(atoms, list) and all(isinstance(a, str) for a in atoms) else None

    @_maintenance
    def task_texts(self, task: str) -> tuple[str, str] | None:
        """The (domain, problem) PDDL texts of a stored task, or None."""
        row = self._connection().execute("SELECT domain, problem FROM tasks WHERE task = ?", (task,)).fetchone()
        return None if row is None or not all(isinstance(t, str) for t in row) else (row[0], row[1])

    # ---- graded answers (acptools.proofs.grade_memo): a warm run reads them instead of grading again ------
    def get_grades(self, keys: list[str]) -> dict[str, dict]:
        """The stored grades of many keys at once (one query per GRADES_PER_QUERY keys: a warm run
        reads thousands); a row that does not authenticate is bypassed and counted, never served, and
        keys not stored are left out."""
        found: dict[str, dict] = {}
        rows: list[tuple] = []
        for k in range(0, len(keys), GRADES_PER_QUERY):
            chunk = keys[k : k + GRADES_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            rows += self._read_all(
                f"SELECT key, task, value, checksum FROM grades WHERE version = ? AND key IN ({marks})",
                (ENGINE_VERSION, *chunk),
            )
        served = {row[0]: row[1:] for row in rows if isinstance(row[0], str)}
        for key in dict.fromkeys(keys):
            value = self._served(served.get(key), "", GRADE_KIND, key)
            if value is not None:
                found[key] = value
        return found

    def put_grade(self, key: str, task: str, value: dict) -> None:
        """Keep a grade (callers keep only proven ones) under `key`, for the task whose PDDL hashes to `task`."""
        if self.broken or self.readonly:
            return
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
        mac = row_mac(self._key, ENGINE_VERSION, task, "", GRADE_KIND, key, text)
        try:
            self._connection().execute(
                "INSERT OR REPLACE INTO grades VALUES (?, ?, ?, ?, ?)", (ENGINE_VERSION, key, task, text, mac)
            )
            self.writes += 1
        except sqlite3.Error as e:
            self._fail(str(e))

    # ---- grounded tasks (acptools.proofs.kept_tasks): a later run reads a task instead of grounding it ----
    def _grounded_mac(self, task: str, version: str, blob: bytes) -> str:
        return row_mac(self._key, version, task, "", GROUNDED_KIND, "", hashlib.sha256(blob).hexdigest())

    def _grounded_authentic(self, task: object, version: str, blob: object, mac: object) -> bool:
        """Was this kept task written by someone holding this store's key?"""
        return (
            isinstance(task, str)
            and isinstance(blob, bytes)
            and isinstance(mac, str)
            and hmac.compare_digest(mac, self._grounded_mac(task, version, blob))
        )

    def get_grounded(self, task: str, version: str) -> bytes | None:
        """The kept bytes of a grounded task under a code `version`, or None (also for a row that does
        not authenticate: bypassed, counted, and never handed out, since reading them runs code)."""
        row = self._read("SELECT blob, checksum FROM grounded WHERE version = ? AND task = ?", (version, task))
        if row is None:
            self.misses += 1
            return None
        blob, mac = row
        if not self._grounded_authentic(task, version, blob, mac):
            self.bypass(GROUNDED_KIND, task, "not authenticated by this store's key")
            return None
        self.hits += 1
        return blob

    def put_grounded(self, task: str, version: str, blob: bytes) -> None:
        """Keep a grounded task's bytes under the code `version` that wrote them."""
        if self.broken or self.readonly:
            return
        try:
            self._connection().execute(
                "INSERT OR REPLACE INTO grounded VALUES (?, ?, ?, ?)",
                (version, task, blob, self._grounded_mac(task, version, blob)),
            )
            self.writes += 1
        except sqlite3.Error as e:
            self._fail(str(e))

    @_maintenance
    def grounded_rows(self, version: str, sample: int | None = None, seed: int = 0) -> list[tuple[str, bool]]:
        """Kept tasks of a code `version`, all or `sample` random ones: (task, authentic)."""
        if not self._has_table("grounded"):
            return []
        found = [
            (t, self._grounded_authentic(t, version, b, mac))
            for t, b, mac in self._connection().execute(
                "SELECT task, blob, checksum FROM grounded WHERE version = ? ORDER BY task", (version,)
            )
        ]
        if sample is not None and sample < len(found):
            found = sorted(random.Random(seed).sample(found, sample))
        return found

    @_maintenance
    def grounded_count(self, exclude: str | None = None) -> int:
        """Kept tasks, of every code version but `exclude`."""
        if not self._has_table("grounded"):
            return 0
        return (
            self._connection()
            .execute("SELECT COUNT(*) FROM grounded WHERE version != ?", (exclude or "",))
            .fetchone()[0]
        )

    @_maintenance
    def grade_rows(self, sample: int | None = None, seed: int = 0) -> list[tuple]:
        """Current-version grades, all or `sample` random ones: (key, task, value text, authentic)."""
        if not self._has_grades():
            return []
        query = "SELECT key, task, value, checksum FROM grades WHERE version = ? ORDER BY key"
        found = [
            (key, t, v, isinstance(t, str) and isinstance(v, str) and self.authentic(t, "", GRADE_KIND, key, v, mac))
            for key, t, v, mac in self._connection().execute(query, (ENGINE_VERSION,))
        ]
        if sample is not None and sample < len(found):
            found = sorted(random.Random(seed).sample(found, sample))
        return found

    def _has_grades(self) -> bool:
        return self._has_table("grades")

    def _has_table(self, name: str) -> bool:
        """Whether the file has this table (a read-only file made by an older acptools may not)."""
        return (
            self._connection()
            .execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
            .fetchone()
            is not None
        )

    # ---- moving facts between stores (workers on other machines) -----------------------------
    @_maintenance
    def export(self, task: str) -> dict:
        """Everything known about one task: its PDDL, states and current-version facts that authenticate."""
        if self.broken:
            return {}
        conn = self._connection()
        facts = []
        for st, k, key, v, mac in conn.execute(
            "SELECT state, kind, key, value, checksum FROM facts WHERE version = ? AND task = ?", (ENGINE_VERSION, task)
        ):
            if isinstance(v, str) and self.authentic(task, st, k, key, v, mac):
                facts.append((st, k, key, json.loads(v)))
        return {
            "task": task,
            "texts": self.task_texts(task),
            "states": conn.execute("SELECT state, atoms FROM states WHERE task = ?", (task,)).fetchall(),
            "facts": facts,
        }

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
    @_maintenance
    def stats(self) -> dict:
        """Rows by engine version and kind, current rows that fail authentication (never served),
        tasks kept, the file's size, and this process's hits, misses, writes and bypassed rows."""
        out = {
            "path": str(self.path),
            "broken": self.broken,
            "readonly": self.readonly,
            "engine_version": ENGINE_VERSION,
        }
        if self.broken:
            return out
        conn = self._connection()
        out["facts"] = {
            f"{v} {k}": n
            for v, k, n in conn.execute("SELECT version, kind, COUNT(*) FROM facts GROUP BY version, kind")
        }
        out["bypassed"] = sum(1 for row in self.rows() if not row[-1])
        out["old_version"] = conn.execute(
            "SELECT COUNT(*) FROM facts WHERE version != ?", (ENGINE_VERSION,)
        ).fetchone()[0]
        out["tasks"] = conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        grades = self.grade_rows()
        out["grades"] = {
            "rows": len(grades),
            "bypassed": sum(1 for row in grades if not row[-1]),
            "old_version": conn.execute("SELECT COUNT(*) FROM grades WHERE version != ?", (ENGINE_VERSION,)).fetchone()[
                0
            ]
            if self._has_grades()
            else 0,
        }
        out["grounded_tasks"] = self.grounded_count()
        out["bytes"] = self.path.stat().st_size if self.path.exists() else 0
        out["this_process"] = {
            "hits": self.hits,
            "misses": self.misses,
            "writes": self.writes,
            "bypassed": self.bypassed,
        }
        return out

    @_maintenance
    def rows(self, sample: int | None = None, seed: int = 0) -> list[tuple]:
        """Current-version rows, all or `sample` random ones: (task, state, kind, key, value text,
        authentic)."""
        query = (
            "SELECT task, state, kind, key, value, checksum FROM facts WHERE version = ? "
            "ORDER BY task, state, kind, key"
        )
        found = [
            (t, s, k, key, v, isinstance(v, str) and self.authentic(t, s, k, key, v, mac))
            for t, s, k, key, v, mac in self._connection().execute(query, (ENGINE_VERSION,))
        ]
        if sample is not None and sample < len(found):
            found = sorted(random.Random(seed).sample(found, sample))
        return found

    @_maintenance
    def clear(self) -> int:
        """Remove every fact, grade and grounded task (of every version) and task; returns how many facts
        there were (`cleared_grades` then says how many grades)."""
        if self.readonly:
            raise AcpError(
                f"the proof store {self.path} is read-only here",
                "cache clear",
                "ask its owner, or delete the file if the folder is yours",
            )
        conn = self._connection()
        n = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
        conn.execute("DELETE FROM facts")
        conn.execute("DELETE FROM tasks")
        conn.execute("DELETE FROM states")
        self.cleared_grades = conn.execute("SELECT COUNT(*) FROM grades").fetchone()[0]
        conn.execute("DELETE FROM grades")
        if self._has_table("grounded"):
            conn.execute("DELETE FROM grounded")
        conn.execute("VACUUM")
        return n

    def close(self) -> None:
        """Close this thread's connection (the file can then be removed)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            conn.close()
        self._local.conn = None


_active: ProofStore | None = None
_lock = threading.Lock()


def use(
    path: str | os.PathLike | None = "default", key_file: str | os.PathLike | None = None, key: bytes | None = None
) -> ProofStore | None:
    """Open the store every truth computation reads and writes ("default": see default_path();
    None: no store), its rows authenticated with `key`, or the key in `key_file` (see
    acptools.proofs.signing_key). Returns it (None when off)."""
    global _active
    with _lock:
        chosen = default_path() if path == "default" else (None if path is None else Path(path))
        _active = None if chosen is None else ProofStore(chosen, key=key, key_file=key_file)
        return _active


def active() -> ProofStore | None:
    """The proof store in use, or None."""
    return _active


@contextmanager
def paused() -> Iterator[None]:
    """No store in use inside the block (what is being checked is proven from scratch, never read)."""
    global _active
    with _lock:
        previous, _active = _active, None
    try:
        yield
    finally:
        _active = previous
