"""ACPBench Hard records: the bundled copy, the Hugging Face Hub, or files and folders of your own.

    from acptools.dataset import acpbench_hard, load_records
    acpbench_hard("test")                        # the bundled test split, 640 records (8 tasks x 80)
    acpbench_hard("dev", "nexta")                # one task of one split
    load_records("acpbench-hard:test:nexta")     # the same, by name (what `--data` accepts)
    load_records("answers/", "more.jsonl.gz")    # files or folders: JSON arrays, JSONL, .json.gz, .jsonl.gz
    load_records("hf:acpbench-hard:test")        # from the Hub (needs `pip install 'acptools[hf]'` and network)
    sample(records, 3, seed=0)                   # 3 per task, spread over the domains (what --limit draws)

Named sources: `acpbench-hard[:SPLIT][:TASK]` (SPLIT dev or test, both when left out; TASK one of
app prog reach areach val just land nexta, all when left out), and `hf:` in front of the same name
for the Hugging Face copy. A string of that form is always a name: to read a folder called
`acpbench-hard`, write `./acpbench-hard`. Ids stay exact 64-bit integers (Python's json).

A record is identified by its task (from its group) and its id together, never by the id alone:
ACPBench Hard's ids repeat across tasks (13 ids of the test split name two records each), so every
join of records, responses and items in acptools keys on `(task_of(record), str(id))`.
The bundled copy is IBM's ACPBench Hard, CDLA-Permissive-2.0: see data/acpbench_hard/README.md.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import re
from collections import defaultdict
from pathlib import Path

from .errors import AcpError
from .kinds import HARD, KINDS, form_kind

TASKS = HARD
GROUP_TO_TASK = {KINDS[t].group: t for t in TASKS}
TASK_TO_GROUP = {t: g for g, t in GROUP_TO_TASK.items()}
SPLITS = ("dev", "test")
FIELDS = ("id", "group", "context", "question", "answer", "PDDL_domain", "PDDL_problem")

NAME = "acpbench-hard"
BUNDLED = Path(__file__).parent / "data" / "acpbench_hard"
HF_REPO = "ibm-research/acp_bench"  # configs acp_<task>_gen, splits validation and test
HF_SPLIT = {"dev": "validation", "test": "test"}
HF_INSTALL = "pip install 'acptools[hf]'"
SOURCES_HELP = (
    f"named sources: {NAME}[:dev|test][:TASK] (bundled) or hf:{NAME}[:dev|test][:TASK] "
    f"(Hugging Face); TASK is one of {' '.join(TASKS)}; or give files or folders"
)


def task_of(record: dict) -> str:
    """The task kind a record asks (from its group): 'app', ..., or a generated form's kind."""
    group = record.get("group", "")
    if group in GROUP_TO_TASK:
        return GROUP_TO_TASK[group]
    if group in TASKS:
        return group
    kind = form_kind(group)  # a generated form (acptools.kinds): 'landmarks_bool' -> 'land_bool'
    if kind is not None:
        return kind
    raise AcpError(
        f"record {record.get('id')!r} has unknown group {group!r}", "data", f"groups: {', '.join(GROUP_TO_TASK)}"
    )


def domain_name(record: dict) -> str:
    """The domain name a record's PDDL declares (lower case)."""
    m = re.search(r"\(\s*domain\s+([^\s()]+)", record.get("PDDL_domain", ""), re.I)
    return m.group(1).lower() if m else "?"


# what a generated record's context says when no template describes its domain (acptools.generate.render):
# the PDDL is part of the question, so whoever asks it must send the PDDL along
PDDL_PROMISE = "its PDDL is given with the question"


def promises_pddl(record: dict) -> bool:
    """Whether the record's context says its PDDL comes with the question (it cannot be answered without)."""
    return PDDL_PROMISE in str(record.get("context", ""))


def record_key(record: dict) -> tuple[str, str]:
    """What identifies a record (and the responses and items about it): (task, id). The id alone
    does not: ACPBench Hard's ids repeat across tasks."""
    return task_of(record), str(record.get("id"))


# ----------------------------------------------------------------------------------------- samples


def sample(items: list, n: int, *, seed: int = 0, per_domain: bool = False, task=task_of, domain=domain_name) -> list:
    """A fair, seeded sample of `items` (records by default): `n` per task spread over the task's
    domains as evenly as they allow, or with `per_domain` `n` per task and domain. Within a domain
    the items are drawn at random (seeded); the tasks start at different domains of one seeded
    order, so `n` per task over several tasks covers every domain, not the first n records' one.
    `task` and `domain` say what an item's task and domain are. The items keep their input order;
    a sample of a sample with the same `n` is itself."""
    groups: dict = defaultdict(lambda: defaultdict(list))  # task -> domain -> indices, input order
    for i, item in enumerate(items):
        groups[task(item)][domain(item)].append(i)
    order = sorted({d for doms in groups.values() for d in doms}, key=str)
    random.Random(f"{seed}/domains").shuffle(order)
    picked: list[int] = []
    for k, t in enumerate(sorted(groups, key=_task_rank)):
        drawn = {d: random.Random(f"{seed}/{t}/{d}").sample(idx, len(idx)) for d, idx in groups[t].items()}
        if per_domain:
            picked += [i for idx in drawn.values() for i in idx[:n]]
            continue
        start = k * n % len(order)
        cycle = [d for d in order[start:] + order[:start] if d in drawn]
        picked += _round_robin([drawn[d] for d in cycle], n)
    return [items[i] for i in sorted(picked)]


def _task_rank(t) -> tuple:
    return (TASKS.index(t), "") if t in TASKS else (len(TASKS), str(t))


def _round_robin(lists: list[list[int]], n: int) -> list[int]:
    """Up to n items taken one from each list in turn (a list that runs out is skipped)."""
    out, depth = [], 0
    while len(out) < n and any(depth < len(lst) for lst in lists):
        out += [lst[depth] for lst in lists if depth < len(lst)][: n - len(out)]
        depth += 1
    return out


# ------------------------------------------------------------------------------------------ files


def _read_file(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise AcpError(f"invalid JSON: {e.msg}", f"{path} line {e.lineno}, column {e.colno}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise AcpError(f"invalid JSON line: {e.msg}", f"{path} line {n}, column {e.colno}") from None
    return rows


def _is_record_file(f: Path) -> bool:
    """A file of records in a folder: JSON or JSONL, gzip'd or not; the settings file a run writes beside its
    output (`X.jsonl.run.json`, acptools.util.runfile) is not one."""
    return (
        f.is_file()
        and f.name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz"))
        and not f.name.endswith(".run.json")
    )


def encode_jsonl_gz(records: list[dict]) -> bytes:
    """Records as gzip'd JSONL with fixed header bytes (mtime 0, no file name): same records, same bytes."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


# ------------------------------------------------------------------------------------ named sources


def _parse_name(source: str) -> tuple[bool, tuple[str, ...], tuple[str, ...]] | None:
    """`[hf:]acpbench-hard[:SPLIT][:TASK]` -> (hub?, splits, tasks); None if `source` is not of that form."""
    hub = source.startswith("hf:")
    rest = source[3:] if hub else source
    head, _, tail = rest.partition(":")
    if head != NAME:
        if hub:
            raise AcpError(f"unknown Hugging Face source {source!r}", "data", SOURCES_HELP)
        return None
    splits, tasks = SPLITS, TASKS
    for part in tail.split(":") if tail else []:
        if part in SPLITS and splits == SPLITS:
            splits = (part,)
        elif (part in TASKS or part in GROUP_TO_TASK) and tasks == TASKS:
            tasks = (GROUP_TO_TASK.get(part, part),)
        else:
            raise AcpError(f"{part!r} is not a split or task of {NAME}", f"data source {source!r}", SOURCES_HELP)
    return hub, splits, tasks


def _check(split: str | None, task: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if split is not None and split not in SPLITS:
        raise AcpError(f"unknown split {split!r}", NAME, f"splits: {', '.join(SPLITS)}")
    if task is not None and task not in TASKS and task not in GROUP_TO_TASK:
        raise AcpError(f"unknown task {task!r}", NAME, f"tasks: {', '.join(TASKS)}")
    return ((split,) if split else SPLITS), ((GROUP_TO_TASK.get(task, task),) if task else TASKS)


def bundled_file(split: str, task: str) -> Path:
    """The bundled file of one split and task (`<split>/<task>.jsonl.gz`, gzip'd JSONL)."""
    (split,), (task,) = _check(split, task)
    path = BUNDLED / split / f"{task}.jsonl.gz"
    if not path.is_file():
        raise AcpError(
            f"bundled ACPBench Hard file is missing: {path}",
            NAME,
            "reinstall acptools; the package ships it as package data",
        )
    return path


def acpbench_hard(split: str | None = None, task: str | None = None) -> list[dict]:
    """Records of the bundled ACPBench Hard copy: one split ('dev' or 'test') or both (dev first),
    one task or all eight (in TASKS order); within a file, the source's order."""
    splits, tasks = _check(split, task)
    return [r for s in splits for t in tasks for r in _read_file(bundled_file(s, t))]


# -------------------------------------------------------------------------------- Hugging Face Hub


def hub_record(row: dict, task: str) -> dict:
    """One Hub row (a `datasets` dict) as our record: the seven fields in our order and types
    (id an exact int, answer as in the bundled copy: nexta `opt` a string, val an int)."""
    where = f"{HF_REPO} acp_{task}_gen row {row.get('id')!r}"
    missing = [f for f in FIELDS if f not in row and f != "group"]
    if missing:
        raise AcpError(f"row lacks {', '.join(missing)}", where, "not an ACPBench Hard (gen) row")
    rid = row["id"]
    if isinstance(rid, str) and re.fullmatch(r"-?\d+", rid.strip()):
        rid = int(rid)
    if not isinstance(rid, int) or isinstance(rid, bool):  # a float would have lost the low bits
        raise AcpError(f"id {rid!r} is not an integer", where)
    answer = row["answer"]
    if isinstance(answer, str) and answer.strip()[:1] in ("[", "{"):
        answer = json.loads(answer)
    if task == "val" and isinstance(answer, str) and answer.strip().isdigit():
        answer = int(answer)
    if isinstance(answer, dict):
        answer = {k: ([] if v is None and k != "opt" else v) for k, v in answer.items()}
        if "opt" in answer and answer["opt"] is not None:
            answer["opt"] = str(answer["opt"])
    rec = {
        "id": rid,
        "group": row.get("group") or TASK_TO_GROUP[task],
        "context": row["context"],
        "question": row["question"],
        "answer": answer,
        "PDDL_domain": row["PDDL_domain"],
        "PDDL_problem": row["PDDL_problem"],
    }
    if task_of(rec) != task:
        raise AcpError(f"group {rec['group']!r} is not task {task}", where)
    return rec


def load_hub(
    split: str | None = None, task: str | None = None, *, repo: str = HF_REPO, revision: str | None = None
) -> list[dict]:
    """ACPBench Hard from the Hugging Face Hub (configs `acp_<task>_gen`; our `dev` is the Hub's
    `validation`), as records shaped like the bundled copy. Needs the optional `datasets` package
    (`pip install 'acptools[hf]'`) and network, or a warm Hugging Face cache. Tests never need it."""
    splits, tasks = _check(split, task)
    try:
        import datasets
    except ImportError:
        raise AcpError(
            "the Hugging Face loader needs the 'datasets' package, which is not installed",
            f"hf:{NAME}",
            f"{HF_INSTALL}; or use the bundled copy, which needs nothing: {NAME}:test",
        ) from None
    out = []
    for s in splits:
        for t in tasks:
            config, hub_split = f"acp_{t}_gen", HF_SPLIT[s]
            try:
                rows = datasets.load_dataset(repo, config, split=hub_split, revision=revision)
            except Exception as e:  # network, authentication, cache and Hub errors: say which download failed
                raise AcpError(
                    f"cannot load config {config}, split {hub_split} of {repo} from the Hugging Face "
                    f"Hub: {type(e).__name__}: {e}",
                    f"hf:{NAME}:{s}:{t}",
                    f"check the network (or a warm cache with HF_HUB_OFFLINE=1); the bundled copy "
                    f"needs no network: {NAME}:{s}:{t}",
                ) from None
            out.extend(hub_record(dict(row), t) for row in rows)
    return out


# ------------------------------------------------------------------------------------------ loader


def load_records(*sources) -> list[dict]:
    """Records from named sources (`acpbench-hard:test`, `hf:acpbench-hard:dev:nexta`, see the module
    docstring), files, or folders (every *.json, *.jsonl, *.json.gz, *.jsonl.gz below a folder)."""
    out: list[dict] = []
    for src in sources:
        if isinstance(src, str):
            named = _parse_name(src)
            if named is not None:
                hub, splits, tasks = named
                for s in splits:
                    for t in tasks:
                        out.extend(load_hub(s, t) if hub else acpbench_hard(s, t))
                continue
        p = Path(src)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if _is_record_file(f))
        elif p.is_file():
            files = [p]
        elif isinstance(src, str) and re.match(r"[A-Za-z][\w.-]+:", src):
            raise AcpError(
                f"unknown data source {src!r} (not a name we know, nor a file or folder)", "data", SOURCES_HELP
            )
        else:
            raise AcpError(f"no such file or folder: {p}", "data", SOURCES_HELP)
        for f in files:
            out.extend(_read_file(f))
    return out
