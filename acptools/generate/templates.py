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

`{name}` stands for the PDDL parameter `?name` of the predicate or action. Predicates and actions
without a phrase are written generically (`pred(o1, o2)`, `act(o1, o2)`), as is every domain without
a file. Files for the bundled example domains ship with them (`acptools/examples/<name>/nl.json`);
`load(path)` reads a file of your own, for any domain.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AcpError

PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILE_NAME = "nl.json"
KEYS = ("domain", "description", "predicates", "negated", "actions", "hidden")


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

    def check(self, domain) -> None:
        """Every phrase names a predicate/action of `domain` and only its parameters."""
        for table, defs, what in ((self.predicates, domain.predicates, "predicate"),
                                  (self.negated, domain.predicates, "predicate"),
                                  (self.actions, domain.actions, "action")):
            for name, phrase in table.items():
                where = f"{self.source}: {what} {name!r}"
                d = defs.get(name)
                if d is None:
                    raise AcpError(f"the domain {domain.name!r} has no {what} {name!r}", where,
                                   f"{what}s: {', '.join(sorted(defs))}")
                params = {v.lstrip("?") for v, _ in d.params}
                for m in PLACEHOLDER.finditer(phrase):
                    if m.group(1) not in params:
                        raise AcpError(f"{{{m.group(1)}}} is not a parameter of {name!r}", where,
                                       "parameters: " + (", ".join(f"{{{p}}}" for p in sorted(params)) or "none"))
        for name in self.hidden:
            if name not in domain.predicates:
                raise AcpError(f"'hidden' names {name!r}, which is not a predicate of {domain.name!r}", self.source)


def _strings(doc: dict, key: str, where: str) -> dict[str, str]:
    table = doc.get(key, {})
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise AcpError(f"{key!r} must map names to phrases (strings)", where)
    return {k.lower(): v for k, v in table.items()}


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
    return Templates(str(doc.get("domain", "")).lower(), str(doc.get("description", "")),
                     _strings(doc, "predicates", source), _strings(doc, "negated", source),
                     _strings(doc, "actions", source), frozenset(h.lower() for h in hidden), source)


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
            raise AcpError(f"the template file is for domain {t.domain!r}, the PDDL is domain {domain.name!r}",
                           str(path), "pass the template file written for this domain")
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
