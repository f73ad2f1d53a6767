"""Where an environment's planning tasks come from: bundled examples, ACPBench Hard style records
(their problem's init is the state), generated families, or the user's PDDL (texts, files or a
folder). A source is a fixed, ordered list of starts, so a seed picks the same start on every machine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import examples
from ..errors import AcpError
from ..generate import TASKS, Options, generate


@dataclass(frozen=True)
class Start:
    """One task to act in: PDDL texts, a label saying where it came from, and the start state's atoms
    (None: the problem's init)."""

    domain: str
    problem: str
    label: str
    state: tuple[str, ...] | str | None = None


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise AcpError(f"cannot read the {what}: {e.strerror or e}", str(path)) from None


def _folder(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """A folder with domain.pddl and one or more problem files (every other *.pddl)."""
    domain = path / "domain.pddl"
    if not domain.is_file():
        raise AcpError("no domain.pddl in the folder", str(path), "put the domain in domain.pddl beside the problems")
    problems = sorted(p for p in path.glob("*.pddl") if p.name != "domain.pddl")
    if not problems:
        raise AcpError("no problem file (*.pddl besides domain.pddl) in the folder", str(path))
    return _read(domain, "domain"), [(_read(p, "problem"), str(p)) for p in problems]


def is_pddl_text(x) -> bool:
    """A string holding PDDL (rather than naming a file, folder or example)."""
    return isinstance(x, str) and "(define" in x.lower()


def pddl_texts(domain, problems=()) -> tuple[str, list[tuple[str, str]]]:
    """(domain text, [(problem text, label)]) from: a bundled example's name; a folder; a domain file
    or PDDL text with problem files or texts. A string that is no PDDL text, example, folder or file
    is an error (a mistyped name must not be read as PDDL)."""
    if isinstance(domain, str) and domain in examples.names() and not problems:
        dtext, ptext = examples.texts(domain)
        return dtext, [(ptext, f"example:{domain}")]
    if not is_pddl_text(domain):
        path = Path(domain) if isinstance(domain, (str, Path)) else None
        if path is not None and path.is_dir():
            if problems:
                raise AcpError("a folder already holds its problems", str(domain), "pass the folder alone")
            return _folder(path)
        if path is None or not path.is_file():
            raise AcpError(
                f"{str(domain)[:80]!r} is no bundled example, folder, file or PDDL text",
                "domain",
                f"bundled examples: {', '.join(examples.names())}",
            )
        domain = _read(path, "domain")
    if isinstance(problems, (str, Path)):
        problems = [problems]
    if not problems:
        raise AcpError("no problem given with the domain", "problems", "pass problem files or PDDL texts")
    out = []
    for k, p in enumerate(problems):
        out.append((p, f"problem[{k}]") if is_pddl_text(p) else (_read(Path(p), "problem"), str(p)))
    return domain, out


def from_examples(names=None) -> list[Start]:
    """The bundled examples (all of them by default), in name order."""
    chosen = examples.names() if names is None else ([names] if isinstance(names, str) else list(names))
    return [Start(*examples.texts(n), f"example:{n}") for n in chosen]


def from_records(records) -> list[Start]:
    """Records with PDDL_domain / PDDL_problem (ACPBench Hard, or acptools.generate's output): each
    record's state is its problem's init."""
    out = []
    for k, r in enumerate(records):
        if not isinstance(r, dict) or not r.get("PDDL_domain") or not r.get("PDDL_problem"):
            raise AcpError(
                "a record needs PDDL_domain and PDDL_problem",
                f"record {k}",
                "pass ACPBench Hard records or acptools.generate output",
            )
        out.append(Start(r["PDDL_domain"], r["PDDL_problem"], f"record:{r.get('id', k)}"))
    return out


def family_records(
    family: str,
    domain=examples.DEFAULT,
    problems=(),
    n: int = 16,
    seed: int = 0,
    budget: float = 10.0,
    where: str = "family",
) -> list[dict]:
    """`n` records of the family "FORM:TASK" (a form of acptools.generate and one of its tasks),
    generated from `domain` and `problems` (as pddl_texts reads them) with `seed`, every answer proven."""
    form, _, task = family.partition(":")
    if form not in TASKS or task not in TASKS[form]:
        raise AcpError(
            f"no family {family!r}", where, "FORM:TASK, e.g. " + ", ".join(f"{f}:{TASKS[f][0]}" for f in TASKS)
        )
    dtext, ptexts = pddl_texts(domain, problems)
    options = Options(form=form, tasks=(task,), n=n, seed=seed, budget=budget)
    return generate(dtext, [text for text, _ in ptexts], options).records


def from_pddl(domain, problems=()) -> list[Start]:
    """One Start per problem: a bundled example's name, a folder, or a domain with problems (files
    or texts)."""
    dtext, ptexts = pddl_texts(domain, problems)
    return [Start(dtext, ptext, label) for ptext, label in ptexts]


def starts(source) -> list[Start]:
    """Starts from any source: None (every bundled example), an example name, a folder, a list of
    records or of Starts, or a (domain, problems) pair."""
    if source is None:
        out = from_examples()
    elif isinstance(source, str) and source in examples.names():
        out = from_examples(source)
    elif isinstance(source, (str, Path)) and not is_pddl_text(source):
        out = from_pddl(source)
    elif isinstance(source, tuple) and len(source) == 2 and not isinstance(source[0], (dict, Start)):
        out = from_pddl(*source)
    elif isinstance(source, (list, tuple)) and all(isinstance(s, Start) for s in source):
        out = list(source)
    elif isinstance(source, (list, tuple)):
        out = from_records(source)
    else:
        raise AcpError(
            f"cannot read tasks from a {type(source).__name__}",
            "source",
            "pass None, an example name, a folder, records, or (domain, problems)",
        )
    if not out:
        raise AcpError("the source holds no task", "source")
    return out
