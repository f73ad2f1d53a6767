"""The proof store cannot be poisoned by whoever can write its file: forged rows (every verdict
flipped, checksums recomputed without the key) are never served and `cache verify` finds each one;
a stored witness that does not replay is not served even when its row authenticates; a damaged
file is a one-line error; a read-only store is read; old-version rows are ignored; the key file is
private; Ray workers keep their stores in private folders they remove."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from acptools import backends, examples, load_task
from acptools.dataset import acpbench_hard
from acptools.proofs import store
from acptools.proofs.row_checks import hstar_problem, list_problem, verdict_problem
from acptools.scoring import clear_caches
from acptools.truth import truth_for
from tests.support.data import ROOT
from tests.support.forge import forge, unkeyed_checksum
from tests.support.load import slack

STABLE = ("id", "score", "verdict")


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    return {**env, **extra}


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=env or _env(),
        cwd=ROOT,
        timeout=600,
    )


def _score(data: Path, out: Path, *cache_flags) -> list[tuple]:
    _cli("score", "--data", data, "--gold", "--quiet", "--out", out, *cache_flags)
    return [tuple(json.loads(line)[k] for k in STABLE) for line in out.read_text().splitlines()]


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A store filled by grading a sample of bundled records, and the items graded without a store."""
    tmp = tmp_path_factory.mktemp("filled")
    recs = [r for t in ("nexta", "reach", "areach", "land") for r in acpbench_hard("dev", t)[:3]]
    data = tmp / "records.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in recs))
    fresh = _score(data, tmp / "fresh.jsonl", "--no-cache")
    cache = tmp / "proofs.sqlite"
    assert _score(data, tmp / "filling.jsonl", "--cache", cache) == fresh
    conn = sqlite3.connect(cache)  # the grades the run kept would answer first: these tests are about the proofs
    conn.execute("DELETE FROM grades")  # (stored grades: tests/scoring/test_grade_memo.py)
    conn.commit()
    conn.close()
    return data, cache, fresh


def _copy(cache: Path, to: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        if Path(str(cache) + suffix).exists():
            shutil.copy(str(cache) + suffix, str(to) + suffix)
    return to


def test_forged_rows_are_never_served_and_verify_finds_every_one(filled, tmp_path):
    data, cache, fresh = filled
    forged = _copy(cache, tmp_path / "forged.sqlite")
    honest = _cli("cache", "verify", "--cache", forged)
    assert honest.returncode == 0 and ": 0 failed" in honest.stdout, honest.stdout + honest.stderr
    n = forge(forged)
    kinds = {k for (k,) in sqlite3.connect(forged).execute("SELECT DISTINCT kind FROM facts")}
    assert n >= 12 and {"h*", "reach-action", "landmark"} <= kinds, kinds
    out = _cli("cache", "stats", "--cache", forged)
    assert out.returncode == 0 and json.loads(out.stdout)["bypassed"] == n
    out = _cli("cache", "verify", "--cache", forged)
    assert out.returncode == 1, out.stdout + out.stderr
    failed = [line for line in out.stdout.splitlines() if line.startswith("  FAILED")]
    assert len(failed) == n and all("not authenticated" in line for line in failed)
    assert f"checked all {n} rows" in out.stdout
    assert _score(data, tmp_path / "forged.jsonl", "--cache", forged) == fresh


def test_the_same_forgeries_signed_with_the_key_would_change_grades(filled, tmp_path):
    """The control: what the key (kept out of the file) prevents. Witness-carrying forgeries are
    still caught by replay; the others would be served."""
    data, cache, fresh = filled
    signed = _copy(cache, tmp_path / "signed.sqlite")
    forge(signed, key=Path(os.environ["ACPTOOLS_STORE_KEY_FILE"]).read_text().strip().encode())
    assert _score(data, tmp_path / "signed.jsonl", "--cache", signed) != fresh
    out = _cli("cache", "verify", "--cache", signed)
    assert out.returncode == 1 and "not authenticated" not in out.stdout
    assert "does not reach the goal" in out.stdout or "steps for h*" in out.stdout


def test_verify_fails_rows_it_cannot_check_and_old_versions_are_ignored(filled, tmp_path):
    _, cache, _ = filled
    bare = _copy(cache, tmp_path / "bare.sqlite")
    conn = sqlite3.connect(bare)
    n = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
    conn.execute("DELETE FROM tasks")  # the PDDL is gone: nothing can be proven again
    conn.commit()
    conn.close()
    out = _cli("cache", "verify", "--cache", bare, "--sample", 3)
    assert out.returncode == 1 and "checked 3 random rows" in out.stdout, out.stdout
    assert out.stdout.count("FAILED") == out.stdout.count("cannot be checked") == 6  # 3 facts, 3 grounded tasks
    assert "loaded again 3 random grounded tasks: 3 failed" in out.stdout
    old = _copy(cache, tmp_path / "old.sqlite")
    conn = sqlite3.connect(old)
    conn.execute("UPDATE facts SET version = 'acptools-proofs-1'")
    conn.execute("UPDATE facts SET checksum = 'x'")
    conn.commit()
    conn.close()
    stats = json.loads(_cli("cache", "stats", "--cache", old).stdout)
    assert stats["old_version"] == n and stats["bypassed"] == 0
    out = _cli("cache", "verify", "--cache", old)
    assert out.returncode == 0 and "checked all 0 rows" in out.stdout


def test_an_authenticated_row_whose_witness_does_not_replay_is_not_served(tmp_path):
    rec = acpbench_hard("dev", "reach")[0]
    task = load_task(rec["PDDL_domain"], rec["PDDL_problem"])
    try:
        found = store.use(tmp_path / "p.sqlite")
        clear_caches()
        truth = truth_for(task, task.init)
        reachable = [a for a in range(len(task.atom_names)) if truth.atom_reach(a, 30).witness][-1]
        honest = truth.atom_reach(reachable, 30)
        row = found.get(task.key, truth.state_key, "reach-atom", task.atom_names[reachable])
        row["witness"] = row["witness"][:-1]  # one step short: written by a key holder, still wrong
        found.put(task.key, truth.state_key, "reach-atom", task.atom_names[reachable], row)
        clear_caches()
        again = truth_for(task, task.init).atom_reach(reachable, 30)
        assert found.bypassed == 1 and again.answer is True
        bad, last = task.run(task.parse_plan(again.witness), task.init)
        assert bad is None and last >> reachable & 1 and honest.answer is True
    finally:
        store.use(None)
        clear_caches()


def test_a_damaged_file_is_a_one_line_error(tmp_path):
    noise = tmp_path / "noise.sqlite"
    noise.write_bytes(os.urandom(64 * 1024))
    good = tmp_path / "good.sqlite"
    found = store.ProofStore(good)
    for k in range(400):
        found.put("t" * 64, f"s{k}", "h*", "", {"cost": k, "plan": None, "how": "x" * 200})
    found.close()
    raw = bytearray(good.read_bytes())
    raw[4096:] = os.urandom(len(raw) - 4096)  # the header survives, the pages do not
    good.write_bytes(bytes(raw))
    for path in (noise, good):
        for action in ("verify", "stats"):
            out = _cli("cache", action, "--cache", path)
            assert out.returncode == 2 and out.stdout == "", out.stdout
            assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr, out.stderr
            assert str(path) in out.stderr


def _read_only_prefix(folder: Path) -> list[str]:
    """How to run a command that may not write `folder`: for a user, chmod; root may write anything,
    so root gets a private mount namespace in which the folder is a read-only bind mount."""
    if os.geteuid() != 0:
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        return []
    prefix = ["unshare", "-m", "sh", "-c", f'mount --bind -o ro "{folder}" "{folder}" && exec "$@"', "sh"]
    probe = subprocess.run(prefix + ["test", "!", "-w", str(folder)], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("running as root, and a read-only bind mount is not possible here (unshare -m)")
    return prefix


def test_a_read_only_store_is_read_and_not_written(filled):
    data, cache, fresh = filled
    folder = Path(tempfile.mkdtemp(prefix="acptools-ro-"))
    items = folder.parent / f"{folder.name}-items.jsonl"
    try:
        ro = _copy(cache, folder / "proofs.sqlite")
        before = ro.read_bytes()
        prefix = _read_only_prefix(folder)

        def run(*args):
            return subprocess.run(
                prefix + [sys.executable, "-m", "acptools.cli", *map(str, args)],
                capture_output=True,
                text=True,
                env=_env(),
                cwd=ROOT,
                timeout=600,
            )

        out = run("cache", "stats", "--cache", ro)
        stats = json.loads(out.stdout)
        assert out.returncode == 0 and stats["readonly"] and stats["bypassed"] == 0 and stats["facts"], out.stderr
        assert out.stderr.count("read-only") == 1
        out = run("cache", "clear", "--cache", ro)
        assert out.returncode == 2 and "read-only" in out.stderr and "Traceback" not in out.stderr
        out = run("score", "--data", data, "--gold", "--quiet", "--out", items, "--cache", ro)
        assert out.stderr.count("read-only") == 1 and "Traceback" not in out.stderr, out.stderr
        assert [tuple(json.loads(line)[k] for k in STABLE) for line in items.read_text().splitlines()] == fresh
        assert ro.read_bytes() == before
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)
        items.unlink(missing_ok=True)


def test_the_key_file_is_made_private_once_and_an_exposed_one_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("ACPTOOLS_STORE_KEY_FILE")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    first = store.ProofStore(tmp_path / "a.sqlite")
    key = tmp_path / "config" / "acptools" / "store.key"
    assert not first.broken and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    text = key.read_text()
    first.put("t", "s", "h*", "", {"cost": 1})
    assert store.ProofStore(tmp_path / "a.sqlite").get("t", "s", "h*") == {"cost": 1} and key.read_text() == text
    key.chmod(0o644)
    exposed = store.ProofStore(tmp_path / "a.sqlite")
    assert exposed.broken and "can be read or changed by other users" in exposed.broken
    assert exposed.get("t", "s", "h*") is None
    out = _cli(
        "cache",
        "stats",
        "--cache",
        tmp_path / "a.sqlite",
        env=_env(XDG_CONFIG_HOME=str(tmp_path / "config"), ACPTOOLS_STORE_KEY_FILE=""),
    )
    assert out.returncode == 2 and "chmod 600" in out.stderr and len(out.stderr.splitlines()) == 1
    other = tmp_path / "other.key"
    other.write_text("a" * 64)
    other.chmod(0o640)  # an operator's key may be shared with a group
    again = store.ProofStore(tmp_path / "a.sqlite", key_file=other)
    assert not again.broken and again.get("t", "s", "h*") is None and again.bypassed == 1


def test_the_unkeyed_checksum_of_the_old_format_does_not_authenticate(tmp_path):
    found = store.ProofStore(tmp_path / "p.sqlite")
    text = json.dumps({"cost": 1}, sort_keys=True, separators=(",", ":"))
    conn = sqlite3.connect(tmp_path / "p.sqlite")
    conn.execute(
        "INSERT INTO facts VALUES (?, 't', 's', 'h*', '', ?, ?)",
        (store.ENGINE_VERSION, text, unkeyed_checksum(store.ENGINE_VERSION, "t", "s", "h*", "", text)),
    )
    conn.commit()
    assert found.get("t", "s", "h*") is None and found.bypassed == 1 and found.stats()["bypassed"] == 1


def _where_am_i(payload):
    own = store.active()
    folder = own.path.parent
    info = folder.stat()
    own.put("t", "s", "h*", "", {"cost": payload})
    return str(folder), stat.S_IMODE(info.st_mode), info.st_uid, own.path.exists()


def test_worker_stores_live_in_private_fresh_folders_that_are_removed():
    seen = []
    for payload in (1, 2):
        (folder, mode, uid, existed), back = backends._with_proofs((_where_am_i, payload, ["t"], [], "run-1"))
        seen.append(folder)
        assert mode == 0o700 and uid == os.getuid() and existed and not Path(folder).exists()
        assert [f[3] for f in back[0]["facts"]] == [{"cost": payload}]
    assert seen[0] != seen[1] and store.active() is None


def test_every_checkable_claim_of_a_row_is_checked_before_it_is_served():
    """Honest rows pass; each way of bending one (as a key holder could) is named."""
    task = load_task(*examples.texts("ferry"))
    truth = truth_for(task, task.init)
    h = truth.h_star(60)
    row = {
        "cost": h.cost,
        "plan": task.action_list(h.plan),
        "how": h.how,
        "first": None if h.first_actions is None else task.action_list(sorted(h.first_actions)),
    }
    assert hstar_problem(task, task.init, row) == ""
    bent = {
        "shorter": {**row, "cost": h.cost - 1, "plan": row["plan"][:-1]},
        "longer": {**row, "cost": h.cost + 1, "plan": row["plan"] + row["plan"][:1]},
        "renamed": {**row, "plan": ["(fly l0)"] + row["plan"][1:]},
        "no plan": {**row, "plan": None},
        "no cost": {k: v for k, v in row.items() if k != "cost"},
        "first": {
            **row,
            "first": [a for a in task.action_names if task.op_for(task.parse_action(a), task.init) is None][:1],
        },
    }
    for why, r in bent.items():
        assert hstar_problem(task, task.init, r), why
    atoms = [a for a in range(len(task.atom_names)) if not task.init >> a & 1]
    target = next(a for a in atoms if truth.atom_reach(a, 30).witness)
    reach = truth.atom_reach(target, 30)
    good = {"answer": True, "how": reach.how, "witness": reach.witness, "detail": "", "extra": {}}
    assert verdict_problem(task, task.init, "reach-atom", target, good) == ""
    for why, r in {
        "flipped": {**good, "answer": False},
        "short": {**good, "witness": reach.witness[:-1]},
        "not a list": {**good, "witness": "(board c0 l0)"},
        "no answer": {**good, "answer": None},
    }.items():
        assert verdict_problem(task, task.init, "reach-atom", target, r), why
    # a landmark refutation must avoid the atom all the way to the goal
    plan = row["plan"]
    visited = {
        a
        for k in range(len(plan) + 1)
        for a in range(len(task.atom_names))
        if task.run(task.parse_plan(plan[:k]), task.init)[1] >> a & 1
    }
    on_path = next(a for a in sorted(visited) if not task.init >> a & 1)
    refute = {"answer": False, "how": "witness-plan", "witness": plan, "detail": "", "extra": {}}
    assert "makes the atom true" in verdict_problem(task, task.init, "landmark", on_path, refute)
    off_path = next(a for a in range(len(task.atom_names)) if a not in visited)
    assert verdict_problem(task, task.init, "landmark", off_path, refute) == ""
    assert verdict_problem(task, task.init, "landmark", off_path, {**refute, "witness": plan[:-1]})
    assert list_problem({"items": [["(at c0 l0)", "static-facts"]], "total": 1, "detail": ""}) == ""
    assert list_problem({"items": [["(at c0 l0)"]], "total": 1}) and list_problem({"items": [], "total": "1"})


def test_processes_that_make_the_key_at_once_agree_on_one(tmp_path):
    config = tmp_path / "config"
    code = (
        "import sys; from acptools.proofs import store; s = store.ProofStore(sys.argv[1]); "
        "s.put('t', sys.argv[2], 'h*', '', {'cost': 1}); print(s.broken or 'ok')"
    )
    env = {**_env(XDG_CONFIG_HOME=str(config)), "ACPTOOLS_STORE_KEY_FILE": ""}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path / "p.sqlite"), f"s{k}"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(4)
    ]
    assert [p.communicate(timeout=slack(120))[0].strip() for p in procs] == ["ok"] * 4
    assert [p.name for p in (config / "acptools").iterdir()] == ["store.key"]  # no temporary file left
    found = store.ProofStore(tmp_path / "p.sqlite", key_file=config / "acptools" / "store.key")
    assert all(found.get("t", f"s{k}", "h*") == {"cost": 1} for k in range(4)) and found.bypassed == 0
