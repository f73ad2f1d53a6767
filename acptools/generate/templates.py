"""Natural-language template files: one per domain, a phrase per predicate and per action.

A template file is JSON:

    {
      "domain": "DOMAIN",                                  the PDDL domain name it is for
      "description": "What the domain is about ...",       opens every question's context
      "predicates": {"pred": "{x} is next to {y}", "flag": "the flag is up"},
      "negated": {"pred": "{x} is not next to {y}"},       optional; default "it is not the case that ..."
      "actions": {"act": "move {x} beside {y}"},
      "hidden": ["not-eq"]                                 optional: static predicates the description
    }                                                      already states, left out of the context

`{name}` stands for the PDDL parameter `?name` of the predicate or action. A phrase may also be a
list of up to MAX_VARIANTS paraphrases (`"at": ["car {c} is at location {l}", "car {c} is in {l}"]`):
the first is the default, and `generate --paraphrase` picks one per name and record, seeded. Predicates and actions
without a phrase are written generically (`pred(o1, o2)`, `act(o1, o2)`), as is every domain without
a file. Files for the bundled example domains ship with them (`acptools/examples/<name>/nl.json`);
`load(path)` reads a file of your own, for any domain.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import AcpError

PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILE_NAME = "nl.json"
KEYS = ("domain", "description", "predicates", "negated", "actions", "hidden")
TABLES = ("predicates", "negated", "actions")
MAX_VARIANTS = 5
# how a question names one object with its type ('car c1'): any domain, so no template file needs them
OBJECT_PHRASES = (
    "{type} {name}",
    "the {type} {name}",
    "{name}, a {type}",
    "{name} (a {type})",
    "the {type} named {name}",
)


@dataclass
class Templates:
    """The phrases of one domain (empty: everything is written generically)."""

    domain: str = ""
    description: str = ""
    predicates: dict[str, str] = field(default_factory=dict)
    negated: dict[str, str] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()
    source: str = ""
    variants: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # table -> name -> paraphrases
    object_phrase: str = OBJECT_PHRASES[0]

    def phrasings(self, table: str, name: str) -> list[str]:
        """Every phrasing of a name in a table ('predicates', 'negated', 'actions'), the default first."""
        return self.variants.get(table, {}).get(name) or [getattr(self, table)[name]]

    def check(self, domain) -> None:
        """Every phrase names a predicate/action of `domain` and only its parameters."""
        for key, defs, what in (
            ("predicates", domain.predicates, "predicate"),
            ("negated", domain.predicates, "predicate"),
            ("actions", domain.actions, "action"),
        ):
            for name, phrase in ((n, p) for n in getattr(self, key) for p in self.phrasings(key, n)):
                where = f"{self.source}: {what} {name!r}"
                d = defs.get(name)
                if d is None:
                    raise AcpError(
                        f"the domain {domain.name!r} has no {what} {name!r}",
                        where,
                        f"{what}s: {', '.join(sorted(defs))}",
                    )
                params = {v.lstrip("?") for v, _ in d.params}
                for m in PLACEHOLDER.finditer(phrase):
                    if m.group(1) not in params:
                        raise AcpError(
                            f"{{{m.group(1)}}} is not a parameter of {name!r}",
                            where,
                            "parameters: " + (", ".join(f"{{{p}}}" for p in sorted(params)) or "none"),
                        )
        for name in self.hidden:
            if name not in domain.predicates:
                raise AcpError(f"'hidden' names {name!r}, which is not a predicate of {domain.name!r}", self.source)


def _phrases(value) -> list[str] | None:
    """A phrase or a list of 1..MAX_VARIANTS paraphrases as a list (None when neither)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and 0 < len(value) <= MAX_VARIANTS and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _strings(doc: dict, key: str, where: str) -> dict[str, list[str]]:
    table = doc.get(key, {})
    lists = {k: _phrases(v) for k, v in table.items()} if isinstance(table, dict) else None
    if lists is None or any(v is None or not isinstance(k, str) for k, v in lists.items()):
        raise AcpError(
            f"{key!r} must map names to phrases (strings, or lists of 1 to {MAX_VARIANTS} paraphrases)", where
        )
    return {k.lower(): v for k, v in lists.items()}


def parse(text: str, source: str = "templates") -> Templates:
    """Templates from the JSON text of a template file (errors name the file and the key)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise AcpError(f"invalid JSON: {e.msg}", f"{source} line {e.lineno}, column {e.colno}") from None
    if not isinstance(doc, dict):
        raise AcpError("a template file holds one JSON object", source, f"keys: {', '.join(KEYS)}")
    unknown = sorted(set(doc) - set(KEYS))
    if unknown:
        raise AcpError(f"unknown key(s) {', '.join(unknown)}", source, f"keys: {', '.join(KEYS)}")
    hidden = doc.get("hidden", [])
    if not isinstance(hidden, list) or not all(isinstance(h, str) for h in hidden):
        raise AcpError("'hidden' must be a list of predicate names", source)
    tables = {key: _strings(doc, key, source) for key in TABLES}
    first = {key: {n: v[0] for n, v in table.items()} for key, table in tables.items()}
    return Templates(
        str(doc.get("domain", "")).lower(),
        str(doc.get("description", "")),
        first["predicates"],
        first["negated"],
        first["actions"],
        frozenset(h.lower() for h in hidden),
        source,
        {key: {n: v for n, v in table.items() if len(v) > 1} for key, table in tables.items()},
    )


def paraphrased(templates: Templates, rng) -> tuple[Templates, dict[str, int]]:
    """The templates with one phrasing drawn per name that has several and one way of naming an
    object with its type (OBJECT_PHRASES), and which ones (by 'table:name' and 'objects', 0 the
    default), for a record to say how it was phrased."""
    chosen, tables = {}, {key: dict(getattr(templates, key)) for key in TABLES}
    for key in TABLES:
        for name, options in sorted(templates.variants.get(key, {}).items()):
            k = rng.randrange(len(options))
            tables[key][name] = options[k]
            chosen[f"{key}:{name}"] = k
    k = rng.randrange(len(OBJECT_PHRASES))
    chosen["objects"] = k
    return replace(templates, **tables, object_phrase=OBJECT_PHRASES[k]), chosen


def starter_for(domain_text: str) -> str:
    """The JSON text of a first template file for a domain's PDDL text (see `starter`)."""
    from ..describe import parse_domain

    return json.dumps(starter(parse_domain(domain_text)), indent=2) + "\n"


def starter(domain) -> dict:
    """A first template file for a parsed domain, for a user to edit: a phrase per predicate and per
    action that names each parameter with its type ('car {c} is at location {l}'), and a
    description naming the types. It loads and checks as it is, so it can be tried before it is edited."""

    def typed(params) -> list[str]:
        return [
            (f"{'/'.join(t for t in types if t != 'object')} " if set(types) - {"object"} else "")
            + f"{{{v.lstrip('?')}}}"
            for v, types in params
        ]

    def words(name: str) -> str:
        return re.sub(r"[-_]+", " ", name)

    def predicate(p) -> str:
        args, w = typed(p.params), words(p.name)
        if len(args) <= 2:
            return " ".join(args[:1] + ["is" if args else "", w] + args[1:]).strip()
        return f"{w}: {', '.join(args)}"

    def action(a) -> str:
        return f"{words(a.name)} {', '.join(typed(a.params))}".strip()

    types = sorted(t for t in domain.supertypes if t != "object")
    kinds = f" Its objects are of the types {', '.join(types)}." if types else ""
    return {
        "domain": domain.name.lower(),
        "description": f"This is the {domain.name} domain.{kinds}",
        "predicates": {n: predicate(p) for n, p in sorted(domain.predicates.items())},
        "actions": {n: action(a) for n, a in sorted(domain.actions.items())},
        "hidden": [],
    }


def load(path) -> Templates:
    """A template file of your own."""
    p = Path(path)
    if not p.is_file():
        raise AcpError(f"no such template file: {p}", "--nl", f"write one like the {FILE_NAME} files under {EXAMPLES}")
    return parse(p.read_text(encoding="utf-8"), str(p))


def bundled() -> dict[str, Path]:
    """The shipped template files by the domain name they are for."""
    found = {}
    for f in sorted(EXAMPLES.glob(f"*/{FILE_NAME}")):
        try:
            name = json.loads(f.read_text(encoding="utf-8")).get("domain", "")
        except (OSError, json.JSONDecodeError):
            continue
        found[str(name).lower()] = f
    return found


def for_domain(domain, path=None) -> Templates:
    """The templates for a parsed domain: `path` if given (checked against the domain: a mismatch is
    an error), else the shipped file for its name if it fits the domain, else generic phrases."""
    if path is not None:
        t = load(path)
        if t.domain and t.domain != domain.name.lower():
            raise AcpError(
                f"the template file is for domain {t.domain!r}, the PDDL is domain {domain.name!r}",
                str(path),
                "pass the template file written for this domain",
            )
        t.check(domain)
        return t
    f = bundled().get(domain.name.lower())
    if f is not None:
        t = load(f)
        try:
            t.check(domain)
            return t
        except AcpError:
            pass  # another domain of the same name: its phrases would not fit
    return Templates(domain.name.lower())
