"""An attacker who can write a proof store's file but cannot read its key: every stored verdict is
flipped (h* made one shorter with a shortened plan, yes/no answers inverted with their witnesses
dropped, complete lists emptied) and each row's checksum column recomputed as well as one can
without the key: the old unkeyed sha256, or an HMAC under a key of the attacker's own.

Works on the SQLite file directly (sqlite3 and hashlib only), as an attacker would."""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from pathlib import Path

ATTACKER_KEY = b"the attacker's own key, not the store's"


def flipped(kind: str, value: dict) -> dict:
    """A wrong version of a stored fact, of the same form."""
    value = dict(value)
    if kind == "h*":
        if value.get("cost"):
            value["cost"] -= 1
            value["plan"] = value["plan"][:-1]
        else:
            value["cost"], value["plan"] = 3, None
    elif kind.startswith("list-"):
        value["items"] = [] if value["items"] else [["(made-up x)", "static-facts"]]
    else:
        value["answer"] = not value["answer"]
        value["witness"] = None
    return value


def unkeyed_checksum(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def attacker_mac(*parts: str) -> str:
    return hmac.new(ATTACKER_KEY, json.dumps(list(parts)).encode(), hashlib.sha256).hexdigest()


def key_holder_mac(key: bytes, parts) -> str:
    """The store's row MAC, as someone holding its key computes it: HMAC-SHA256 over each part prefixed
    by its length in bytes."""
    message = b"".join(
        b"%d:" % len(p.encode("utf-8", "surrogatepass")) + p.encode("utf-8", "surrogatepass") for p in parts
    )
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def forge(path: Path, key: bytes | None = None) -> int:
    """Flip every row in the file; returns how many. `key`: sign with the real key instead (what a
    key holder could do: used to show the forgeries would change answers if they were served)."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT version, task, state, kind, key, value FROM facts").fetchall()
    for k, (version, task, state, kind, name, value) in enumerate(rows):
        text = json.dumps(flipped(kind, json.loads(value)), sort_keys=True, separators=(",", ":"))
        parts = (version, task, state, kind, name, text)
        if key is not None:
            mac = key_holder_mac(key, parts)
        else:
            mac = unkeyed_checksum(*parts) if k % 2 else attacker_mac(*parts)
        conn.execute(
            "UPDATE facts SET value = ?, checksum = ? WHERE version = ? AND task = ? AND state = ? "
            "AND kind = ? AND key = ?",
            (text, mac, version, task, state, kind, name),
        )
    conn.commit()
    conn.close()
    return len(rows)


def flipped_grade(value: dict) -> dict:
    """A stored grade turned around: a correct answer graded wrong, a wrong one graded correct."""
    graded = dict(value["graded"])
    graded["score"] = 0 if graded["score"] else 1
    graded["verdict"] = "incorrect" if graded["verdict"] == "correct" else "correct"
    graded["reason"] = "forged"
    return dict(value, graded=graded)


def forge_grades(path: Path, key: bytes | None = None) -> int:
    """Flip every stored grade (acptools.proofs.grade_memo) in the file, its checksum recomputed without the
    key (or, given `key`, with the real one: the control); returns how many."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT version, key, task, value FROM grades").fetchall()
    for k, (version, name, task, value) in enumerate(rows):
        text = json.dumps(flipped_grade(json.loads(value)), sort_keys=True, separators=(",", ":"))
        parts = (version, task, "", "grade-memo", name, text)
        if key is not None:
            mac = key_holder_mac(key, parts)
        else:
            mac = unkeyed_checksum(*parts) if k % 2 else attacker_mac(*parts)
        conn.execute(
            "UPDATE grades SET value = ?, checksum = ? WHERE version = ? AND key = ?", (text, mac, version, name)
        )
    conn.commit()
    conn.close()
    return len(rows)
