"""What to roll out: one start state of one PDDL task per episode, from the sources `--tasks` takes.

    load_tasks("acpbench-hard:test:nexta")    # named record sources (acptools.dataset): a record's
                                              #   PDDL and its state (the problem's init), any task kind
    load_tasks("records.jsonl", "more/")      # record files (.json, .jsonl, .json.gz, .jsonl.gz)
    load_tasks("tasks/")                      # a folder with domain.pddl and problem files, or a folder
                                              #   of such folders
    load_tasks("tasks/p03.pddl")              # one problem file (its domain.pddl beside it)
    load_tasks("NAME", "example:NAME")        # bundled example tasks by name (acptools.examples.names())

Identical start states (same domain, problem and state text) are rolled out once: ACPBench Hard
asks several questions about one state, and a policy should not be paid twice for it.
`sample_tasks` draws a fair sample of them (--limit): N per record task, spread over the domains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import examples
from ..dataset import domain_name, load_records, sample, task_of
from ..errors import AcpError
from ..scoring.question import check_record
from ..task import Task, task_key
from ..truth import task_for
from .defaults import TASKS_HELP

RECORD_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
DOMAIN_FILE = "domain.pddl"


@dataclass
class RolloutTask:
    """One episode's task and start state. `id` is unique in a run: traces and --resume key on it."""

    id: str
    domain_text: str
    problem_text: str
    source: str  # the --tasks argument it came from
    state: list[str] | None = None  # atoms of the start state; None: the problem's init
    info: dict = field(default_factory=dict)  # where it came from (record id and kind, file)

    def load(self) -> Task:
        """The grounded task (loaded once per distinct PDDL text, shared through acptools.truth)."""
        return task_for(self.domain_text, self.problem_text)

    @property
    def key(self) -> tuple:
        """What identifies the task: its PDDL texts' key and the start state."""
        return task_key(self.domain_text, self.problem_text), tuple(self.state or ())


def load_tasks(*sources) -> list[RolloutTask]:
    """Tasks from every source in order (--tasks strings, paths, or RolloutTasks as they are),
    duplicates of an earlier start state dropped."""
    found: list[RolloutTask] = []
    for src in sources:
        found.extend([src] if isinstance(src, RolloutTask) else _from_source(str(src)))
    return _unique(found)


def sample_tasks(tasks: list[RolloutTask], n: int, seed: int = 0, per_domain: bool = False) -> list[RolloutTask]:
    """`n` tasks per record task kind (tasks from PDDL files and examples count as one kind), spread
    over the domains, seeded (acptools.dataset.sample); `per_domain`: `n` per kind and domain."""
    return sample(
        tasks,
        n,
        seed=seed,
        per_domain=per_domain,
        task=lambda t: t.info.get("record_task", "pddl"),
        domain=lambda t: domain_name({"PDDL_domain": t.domain_text}),
    )


def _unique(tasks: list[RolloutTask]) -> list[RolloutTask]:
    seen_keys, seen_ids, out = set(), set(), []
    for t in tasks:
        if t.key in seen_keys:
            continue
        seen_keys.add(t.key)
        base, n = t.id, 2
        while t.id in seen_ids:  # two folders with the same name: keep both, told apart
            t.id, n = f"{base}#{n}", n + 1
        seen_ids.add(t.id)
        out.append(t)
    return out


def _from_source(src: str) -> list[RolloutTask]:
    path = Path(src)
    if src.startswith("example:"):
        return [_example(src[len("example:") :], src)]
    if not path.exists() and src in examples.names():
        return [_example(src, src)]
    if path.is_dir():
        return _from_folder(path, src)
    if path.is_file() and path.name.endswith(".pddl"):
        return [_problem_file(path, src)]
    # named record sources, record files, and anything else (load_records says what is wrong)
    return _from_records(src)


def _example(name: str, src: str) -> RolloutTask:
    domain, problem = examples.texts(name)
    return RolloutTask(f"example/{name}", domain, problem, src, info={"example": name})


_HEADER = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)


def _kind_of_file(path: Path) -> str | None:
    """'domain' or 'problem' as the file's (define (...)) header says (comments skipped), else None."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = _HEADER.search(re.sub(r";[^\n]*", "", text))
    return m.group(1).lower() if m else None


def _problem_file(path: Path, src: str) -> RolloutTask:
    if path.name == DOMAIN_FILE:
        raise AcpError("this is a domain file", src, "pass its folder, or a problem file beside it")
    if _kind_of_file(path) == "domain":
        raise AcpError(
            f"{path.name} is a domain file (define (domain ...)), not a problem",
            src,
            f"a task folder holds one domain, named {DOMAIN_FILE}, and problem files: move {path.name} "
            f"to a folder of its own (as {DOMAIN_FILE}) with its problems",
        )
    domain = path.parent / DOMAIN_FILE
    if not domain.is_file():
        raise AcpError(
            f"no {DOMAIN_FILE} beside the problem file",
            src,
            f"put the domain in {domain}, or pass a folder holding both",
        )
    return RolloutTask(
        f"{path.parent.name}/{path.stem}", domain.read_text(), path.read_text(), src, info={"problem_file": str(path)}
    )


def _from_folder(folder: Path, src: str) -> list[RolloutTask]:
    """A task folder (domain.pddl and problems), or a folder holding task folders and record files."""
    if (folder / DOMAIN_FILE).is_file():
        problems = sorted(p for p in folder.glob("*.pddl") if p.name != DOMAIN_FILE)
        if not problems:
            raise AcpError(f"{DOMAIN_FILE} but no problem files", src, "add problem .pddl files beside the domain")
        return [_problem_file(p, src) for p in problems]
    task_folders = sorted(d.parent for d in folder.rglob(DOMAIN_FILE))
    record_files = sorted(
        f
        for f in folder.rglob("*")
        if f.is_file() and f.name.endswith(RECORD_SUFFIXES) and not any(d in f.parents for d in task_folders)
    )
    if not task_folders and not record_files:
        raise AcpError(f"no {DOMAIN_FILE} and no record files in the folder", src, TASKS_HELP)
    return [t for d in task_folders for t in _from_folder(d, src)] + [
        t for f in record_files for t in _from_records(str(f))
    ]


def _from_records(src: str) -> list[RolloutTask]:
    try:
        records = load_records(src)
    except AcpError as e:
        raise AcpError(e.what, f"--tasks {src}", TASKS_HELP) from None
    if not records:
        raise AcpError("no records found", f"--tasks {src}", TASKS_HELP)
    out = []
    for r in records:
        check_record(r)
        kind = task_of(r)
        out.append(
            RolloutTask(
                f"{kind}/{r['id']}",
                r["PDDL_domain"],
                r["PDDL_problem"],
                src,
                info={"record_id": r["id"], "record_task": kind},
            )
        )
    return out
