"""Writing atoms, actions, states and goals of a task in natural language, and a question's context.

Phrases come from the domain's template file (see `templates`); whatever has no phrase is written
generically: `pred(o1, o2)`, `act(o1, o2)`, `flag()`. A context reads like ACPBench's: what
the domain is about, its objects, the facts that never change, the current state, the goal when the
question needs it, and the PDDL names of the actions or propositions an answer is written with.
"""

from __future__ import annotations

import re

from ..dataset import PDDL_PROMISE
from ..describe import split_name
from .templates import PLACEHOLDER, Templates

# a ground comparison atom of a numeric task, as it is named: '(>= (fuel t1) 5)'
COMPARISON = re.compile(r"^\((<=|>=|<|>|=) (.+)\)$")
# a comparison of one numeric variable with a number: '(fuel t1) 5'
SIMPLE_SIDES = re.compile(r"^\(([^()]+)\) (-?[\d./]+)$")
RELATIONS = {"=": "is", "<": "is less than", ">": "is more than", "<=": "is at most", ">=": "is at least"}


def join(items, word: str = "and") -> str:
    """['a'] -> 'a'; ['a', 'b'] -> 'a and b'; ['a', 'b', 'c'] -> 'a, b, and c'."""
    items = list(items)
    if len(items) <= 2:
        return f" {word} ".join(items)
    return ", ".join(items[:-1]) + f", {word} " + items[-1]


class Renderer:
    """Phrases for one task, from its templates."""

    def __init__(self, task, templates: Templates):
        self.task, self.templates = task, templates
        self.domain = task.domain

    # ---- single names -------------------------------------------------------------------------
    @staticmethod
    def _fill(phrase: str, params, args) -> str:
        values = {v.lstrip("?"): a for (v, _), a in zip(params, args, strict=True)}
        return PLACEHOLDER.sub(lambda m: values[m.group(1)], phrase)

    @staticmethod
    def _generic(name: str, args) -> str:
        return f"{name}({', '.join(args)})"

    def atom(self, name: str, negated: bool = False) -> str:
        """'(at c0 l1)' -> 'car c0 is at location l1' (or 'at(c0, l1)' without a phrase)."""
        if self.task.grounded.numeric is not None and COMPARISON.match(name):
            return self.comparison(name, negated)
        pred, args = split_name(name)
        params = self.domain.predicates[pred].params if pred in self.domain.predicates else ()
        if negated and pred in self.templates.negated:
            return self._fill(self.templates.negated[pred], params, args)
        phrase = self.templates.predicates.get(pred)
        text = self._fill(phrase, params, args) if phrase else self._generic(pred, args)
        if negated:
            return f"it is not the case that {text}" if phrase else f"not {text}"
        return text

    @staticmethod
    def comparison(name: str, negated: bool = False) -> str:
        """A numeric goal's comparison atom: '(>= (fuel t1) 5)' -> 'the fuel of t1 is at least 5' (a
        comparison of expressions stays PDDL: '(>= (+ (a) (b)) 5) holds')."""
        found = COMPARISON.match(name)
        assert found is not None, name
        op, sides = found.groups()
        simple = SIMPLE_SIDES.match(sides)
        if simple is None:
            text = f"{name} holds"
        else:
            fn, *args = simple.group(1).split()
            text = f"the {fn}{' of ' + ' and '.join(args) if args else ''} {RELATIONS[op]} {simple.group(2)}"
        return f"it is not the case that {text}" if negated else text

    def action(self, name: str) -> str:
        """'(sail l0 l1)' -> 'sail from location l0 to location l1' (or 'sail(l0, l1)')."""
        schema, args = split_name(name)
        phrase = self.templates.actions.get(schema)
        if not phrase:
            return self._generic(schema, args)
        return self._fill(phrase, self.domain.actions[schema].params, args)

    def object(self, obj: str) -> str:
        """An object named with its type(s), 'car c1' (or as the paraphrase drawn for the record)."""
        types = [t for t in self.task.types.objects.get(obj, ()) if t != "object"]
        if not types:
            return f"object {obj}"
        return self.templates.object_phrase.format(type="/".join(types), name=obj)

    def atoms(self, names, negated: bool = False, word: str = "and") -> str:
        """Atoms in natural language, joined."""
        return join([self.atom(n, negated) for n in names], word)

    def actions(self, names) -> str:
        """Actions in natural language, joined."""
        return join([self.action(n) for n in names])

    def literals(self, atoms=(), negated=()) -> str:
        """Atoms and negated atoms in natural language, joined."""
        return join([self.atom(n) for n in atoms] + [self.atom(n, True) for n in negated])

    # ---- lifted help: the PDDL names an answer is written with ----------------------------------
    def _lifted(self, defs, phrases, names) -> str:
        parts = []
        for name in names:
            params = defs[name].params
            pddl = "(" + " ".join([name] + [v for v, _ in params]) + ")"
            phrase = phrases.get(name)
            parts.append(f"{pddl} - {PLACEHOLDER.sub(lambda m: '?' + m.group(1), phrase)}" if phrase else pddl)
        return join(parts)

    def action_help(self) -> str:
        """The lifted actions an answer is written with, each with its natural-language phrase."""
        return (
            "The available actions are: "
            + self._lifted(self.domain.actions, self.templates.actions, sorted(self.domain.actions))
            + "."
        )

    def atom_help(self) -> str:
        """The lifted propositions an answer is written with, each with its natural-language phrase."""
        return (
            "The available propositions are: "
            + self._lifted(self.domain.predicates, self.templates.predicates, sorted(self.task.fluents))
            + "."
        )

    # ---- the world ------------------------------------------------------------------------------
    def description(self) -> str:
        """The domain's description: the template's, or a generic sentence naming the domain."""
        if self.templates.description:
            return self.templates.description
        return (
            f"This is a planning task of the {self.domain.name} domain ({PDDL_PROMISE}). "
            "Facts are written as predicate(arguments) and actions as name(arguments)."
        )

    def objects(self) -> str:
        """The objects of the task by type, in natural language."""
        by_type: dict[str, list[str]] = {}
        for obj, types in sorted(self.task.types.objects.items()):
            by_type.setdefault("/".join(types), []).append(obj)
        return "The objects are: " + "; ".join(f"{join(objs)} ({t})" for t, objs in sorted(by_type.items())) + "."

    def statics(self) -> str:
        """The static facts in natural language ('' when there are none to show)."""
        facts = sorted(f for f in self.task.static_true if f[0] not in self.templates.hidden)
        if not facts:
            return ""
        return (
            "The following facts never change: "
            + self.atoms("(" + " ".join((p,) + tuple(a)) + ")" for p, a in facts)
            + "."
        )

    def state(self, state: int, lead: str = "Currently") -> str:
        """A state in natural language; on a numeric task its values follow ('the fuel of van1 is 3.5')."""
        names = self.task.names(state)
        numeric = self.task.grounded.numeric is not None
        atoms = [n for n in names if not (numeric and n.startswith("(= "))]
        values = self.values(n for n in names if numeric and n.startswith("(= "))
        if not atoms:
            return f"{lead}, none of the facts that can change holds.{values}"
        return (
            f"{lead}, the following facts hold: {self.atoms(atoms)}; all other facts that can change are false."
            + values
        )

    @staticmethod
    def quantity(term: str) -> str:
        """A ground numeric fluent as the state text names it: '(fuel van1)' -> 'the fuel of van1'."""
        fn, *args = term.strip("()").split()
        return f"the {fn} of {' and '.join(args)}" if args else f"the {fn}"

    @staticmethod
    def values(entries) -> str:
        """' The fuel of van1 is 10 and ...; all other quantities are undefined.' from `(= (f o) v)`
        entries (the state text's form); '' when there are none."""
        said = []
        for entry in entries:
            term, value = entry[len("(= ") : -1].rsplit(" ", 1)
            said.append(f"{Renderer.quantity(term)} is {value}")
        if not said:
            return ""
        return f" The values: {join(said)}; any other quantity is undefined."

    def goal(self) -> str:
        """The goal in natural language."""
        task = self.task
        parts = []
        for pos, neg in task.goal:
            parts.append(self.literals(task.names(pos), task.names(neg)) or "nothing")
        if len(parts) == 1:
            return f"The goal is to reach a state where the following facts hold: {parts[0]}."
        return (
            "The goal is to reach a state where one of the following holds: "
            + join([f"({p})" for p in parts], "or")
            + "."
        )

    def context(
        self, state: int, *, goal: bool = False, actions: bool = False, atoms: bool = False, lead: str = "Currently"
    ) -> str:
        """The text a question is asked in: the domain, its objects and static facts, the state, and
        (when asked for) the goal and the PDDL names of the actions and propositions."""
        parts = [self.description(), self.objects(), self.statics(), self.state(state, lead)]
        if goal:
            parts.append(self.goal())
        if actions:
            parts.append(self.action_help())
        if atoms:
            parts.append(self.atom_help())
        return " ".join(p for p in parts if p)
