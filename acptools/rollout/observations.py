"""What a policy sees each step: the observation, and the prompt text rendered from template files.

The templates are plain text files with `$name` placeholders (`string.Template`; `$$` is a dollar
sign), shipped in `acptools/rollout/templates/`. `Prompts.load(folder)` takes any of them from your
folder instead (`--prompts DIR`); files you do not provide keep the defaults:

    system.txt        the system prompt (no placeholders)
    observation.txt   one turn: $domain_name $domain_pddl $objects $static_facts $state $goal
                      $applicable $history $step $max_steps
    applicable.txt    the $applicable section, only with --show-applicable: $actions
    history_step.txt  one line of $history per earlier step: $step $action $verdict $outcome $reason

The history tells the policy what happened to each earlier reply (applied, or why it was rejected),
never whether it was optimal: that is what is being measured.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template

from ..describe import formula
from ..episode import APPLIED, INAPPLICABLE, UNPARSED
from ..errors import AcpError
from ..task import Task
from ..util.shortrepr import bounded_repr

FILES = {
    "system.txt": set(),
    "observation.txt": {
        "domain_name",
        "domain_pddl",
        "objects",
        "static_facts",
        "state",
        "goal",
        "applicable",
        "history",
        "step",
        "max_steps",
    },
    "applicable.txt": {"actions"},
    "history_step.txt": {"step", "action", "verdict", "outcome", "reason"},
}


def _placeholders(template: Template) -> set[str]:
    names = set()
    for m in template.pattern.finditer(template.template):
        if m.group("invalid") is not None:
            raise ValueError(f"a '$' that starts no placeholder at offset {m.start()} (write $$ for a dollar sign)")
        names.add(m.group("named") or m.group("braced"))
    return names - {None}


@dataclass(frozen=True)
class Prompts:
    """The four templates, checked: every placeholder is one its file may use."""

    templates: dict

    @classmethod
    def load(cls, folder=None) -> Prompts:
        """The prompt templates: each file from `folder` when it has it, else the bundled one; raises
        AcpError on a placeholder the file may not use."""
        defaults = resources.files(__package__) / "templates"
        chosen = {}
        if folder is not None and not Path(folder).is_dir():
            raise AcpError("no such folder", f"--prompts {folder}", f"a folder holding some of {', '.join(FILES)}")
        for name, allowed in FILES.items():
            mine = Path(folder) / name if folder is not None else None
            source = mine if mine is not None and mine.is_file() else defaults / name
            text = source.read_text(encoding="utf-8")
            template = Template(text.rstrip("\n") if name == "history_step.txt" else text)
            try:
                unknown = _placeholders(template) - allowed
            except ValueError as e:
                raise AcpError(str(e), str(source)) from None
            if unknown:
                raise AcpError(
                    f"unknown placeholder(s) {', '.join('$' + u for u in sorted(unknown))}",
                    str(source),
                    f"{name} may use: {', '.join('$' + a for a in sorted(allowed)) or 'none'}",
                )
            chosen[name] = template
        return cls(chosen)

    @property
    def digest(self) -> str:
        """A short hash of the four templates (traces record which prompts made them)."""
        text = "\0".join(self.templates[name].template for name in FILES)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    @property
    def system(self) -> str:
        """The system prompt."""
        return self.templates["system.txt"].template.strip()

    def observation(self, obs: Observation) -> str:
        """The observation prompt: task, state, optionally the applicable actions, and the history."""
        task = obs.task
        parts = _task_parts(task)
        applicable = (
            ""
            if obs.applicable is None
            else self.templates["applicable.txt"].substitute(actions="\n".join(obs.applicable) or "(none)")
        )
        history = (
            "\n".join(
                self.templates["history_step.txt"].substitute(
                    step=h["step"],
                    action=h["action"] or _first_line(h["reply"]),
                    verdict=h["verdict"],
                    outcome=outcome(h),
                    reason=h["reason"],
                )
                for h in obs.history
            )
            or "(none yet)"
        )
        return self.templates["observation.txt"].substitute(
            parts,
            state="\n".join(obs.atoms) or "(no fluent atom is true)",
            applicable=applicable,
            history=history,
            step=obs.step,
            max_steps=obs.max_steps,
        )


def outcome(h: dict) -> str:
    """What the policy is told about one earlier step."""
    if h["verdict"] == APPLIED:
        return "applied"
    if h["verdict"] == UNPARSED:
        return "rejected: no action could be read from the reply"
    if h["verdict"] == INAPPLICABLE:
        return "rejected: " + h["reason"].removeprefix("not applicable here; ")
    return "rejected: " + h["reason"].removeprefix("action: ")  # the name's error, without where it was


def _first_line(text: str) -> str:
    line = next((s.strip() for s in (text or "").splitlines() if s.strip()), "")
    return repr(line[:80] + ("..." if len(line) > 80 else ""))


def _task_parts(task: Task) -> dict:
    """The parts of a prompt that never change within a task (rendered once per task, kept by the task)."""
    parts = task.grounded.caches.get("prompt parts")
    if parts is None:
        parts = task.grounded.caches["prompt parts"] = _render_task_parts(task)
    return parts


def _render_task_parts(task: Task) -> dict:
    by_type: dict[str, list[str]] = {}
    for obj, types in sorted({**task.domain.constants, **task.problem.objects}.items()):
        by_type.setdefault(" or ".join(types), []).append(obj)
    statics = sorted("(" + " ".join((p, *args)) + ")" for p, args in task.static_true)
    return {
        "domain_name": task.domain.name,
        "domain_pddl": task.domain_text.strip(),
        "objects": "\n".join(f"{t}: {' '.join(objs)}" for t, objs in sorted(by_type.items())),
        "static_facts": "\n".join(statics) or "(none)",
        "goal": formula(task.problem.goal),
    }


@bounded_repr
@dataclass
class Observation:
    """One step's view for the policy. `prompt` and `system` are rendered on first use; library
    policies (optimal, random, python:) may read `task` and `state` (an int bitset) directly."""

    episode: str
    step: int  # the number of the step to take (1-based)
    max_steps: int
    task: Task
    state: int
    atoms: list[str]  # the fluent atoms true in the state, sorted
    applicable: list[str] | None  # with --show-applicable only
    history: list[dict]  # earlier steps: step, reply, action, verdict, reason
    prompts: Prompts = field(repr=False, default=None)

    @functools.cached_property
    def system(self) -> str:
        """The system prompt for this observation."""
        return self.prompts.system

    @functools.cached_property
    def prompt(self) -> str:
        """The observation as the user prompt."""
        return self.prompts.observation(self)

    def to_json(self) -> dict:
        """The observation as one JSON object (what a cmd: policy reads, one per line)."""
        return {
            "episode": self.episode,
            "step": self.step,
            "max_steps": self.max_steps,
            "domain": self.task.domain.name,
            "state": self.atoms,
            "goal": formula(self.task.problem.goal),
            "applicable": self.applicable,
            "history": [{k: h[k] for k in ("step", "action", "verdict", "reason")} for h in self.history],
            "system": self.system,
            "prompt": self.prompt,
            "domain_pddl": self.task.domain_text,
            "problem_pddl": self.task.problem_text,
        }
