"""acptools question families as reasoning-gym datasets. Importing this module registers them:

    import reasoning_gym, acptools.environments.reasoning_gym_datasets
    data = reasoning_gym.create_dataset("acp_hard_nexta", size=20, seed=1)             # the default example
    data = reasoning_gym.create_dataset("acp_mcq_land", domain="my/folder", size=20, seed=1)
    entry = data[0]; data.score_answer(model_text, entry)                              # acptools' grader

Families: acp_hard_<task> (the eight ACPBench Hard tasks and `plan`), acp_bool_<task> and
acp_mcq_<task> (ACPBench's yes/no and 4-choice forms), acp_arb_<family> (ActionReasoningBench).
Every entry is made by acptools.generate with its answer proven; `metadata` holds the record, the
PDDL and the proof. Entries are made lazily, `chunk` at a time, from a seed derived from the
dataset's seed and the chunk: the same seed gives the same entries. A domain that cannot give
`chunk` distinct questions repeats the ones it has.

Difficulty: walk length (min_walk..max_walk random steps from the init), plan_share (the share of
states taken on optimal plans instead), ARB sequence length (min_steps..max_steps actions), problem
size (max_problems: the N smallest of the problems given); the curriculum's levels move all four.
"""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass

from reasoning_gym.coaching import BaseCurriculum, RangeAttributeDefinition, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

from .. import examples
from ..describe import describe
from ..errors import AcpError
from ..generate import TASKS, Difficulty, Options, generate
from ..truth import task_for
from .grading import CREDITS, proof, reward
from .prompting import prompt
from .task_sources import pddl_texts

PREFIX = "acp"
WALK_LEVELS = [1, 5, 10, 20, 40]
PLAN_SHARE_LEVELS = [0.25, 0.5, 0.75]
STEP_LEVELS = [1, 5, 10, 15, 19]
PROBLEM_LEVELS = [1, 2, 4, 8, 16]


@dataclass
class AcpConfig:
    """One family's configuration. domain: a bundled example's name, a folder (domain.pddl and
    problems), a domain file or PDDL text; problems: problem files or texts (with a domain file or text)."""

    domain: str = examples.DEFAULT
    problems: tuple = ()
    form: str = "hard"
    task: str = "nexta"
    size: int = 100
    seed: int | None = None
    budget: float = 10.0  # CPU seconds per proof
    min_walk: int = 1
    max_walk: int = 20
    plan_share: float = 0.5
    min_steps: int = 1
    max_steps: int = 10
    max_problems: int = 0  # ask about the N smallest problems only (fewest fluent atoms); 0: all
    chunk: int = 8  # entries generated together
    credit: str = "exact"  # or "partial": IoU / regret credit for wrong answers
    pddl: bool = False  # put the PDDL in the question

    def validate(self) -> None:
        """Raise AcpError when the configuration is inconsistent (unknown family or credit, empty ranges)."""
        if self.form not in TASKS or self.task not in TASKS[self.form]:
            raise AcpError(
                f"no family {self.form}/{self.task}",
                "config",
                f"{self.form} tasks: {', '.join(TASKS.get(self.form, ()))}",
            )
        if self.size < 1 or self.chunk < 1:
            raise AcpError("size and chunk must be at least 1", "config")
        if not 0 <= self.min_walk <= self.max_walk:
            raise AcpError(f"walk range {self.min_walk}..{self.max_walk} is empty", "config")
        if not 1 <= self.min_steps <= self.max_steps:
            raise AcpError(f"step range {self.min_steps}..{self.max_steps} is empty", "config")
        if self.max_problems < 0:
            raise AcpError(f"max_problems must be 0 (all) or more, got {self.max_problems}", "config")
        if not 0.0 <= self.plan_share <= 1.0:
            raise AcpError(f"plan_share must be within [0, 1], got {self.plan_share}", "config")
        if self.credit not in CREDITS:
            raise AcpError(f"unknown credit {self.credit!r}", "config", f"credits: {', '.join(CREDITS)}")


class AcpDataset(ProceduralDataset):
    """Entries with proven answers from acptools.generate; score_answer is acptools' grader."""

    def __init__(self, config: AcpConfig):
        super().__init__(config=config, seed=config.seed, size=config.size)
        self.domain_text, problems = pddl_texts(config.domain, config.problems)
        self.problem_texts = smallest(self.domain_text, [text for text, _ in problems], config.max_problems)
        self.name = f"{PREFIX}_{config.form}_{config.task}"
        self._chunks: dict[int, list[dict]] = {}

    def options(self, seed: int) -> Options:
        """The generator Options for a chunk of entries drawn with `seed`."""
        c = self.config
        steps = tuple(sorted({c.min_steps, (c.min_steps + c.max_steps) // 2, c.max_steps}))
        return Options(
            form=c.form,
            tasks=(c.task,),
            n=c.chunk,
            seed=seed,
            budget=c.budget,
            steps=steps,
            difficulty=Difficulty(walk=(c.min_walk, c.max_walk), plan_share=c.plan_share),
        )

    def _chunk(self, k: int) -> list[dict]:
        """The records of chunk k: generated with seeds derived from (seed, k), up to three tries."""
        if k not in self._chunks:
            made: dict = {}
            for attempt in range(3):
                seed = (self.seed * 1_000_003 + k * 7919 + attempt) % 2**62
                for r in generate(self.domain_text, self.problem_texts, self.options(seed)).records:
                    made.setdefault(r["id"], r)
                if len(made) >= self.config.chunk:
                    break
            if not made:
                raise AcpError(
                    f"no {self.name} question could be proven on this PDDL",
                    self.name,
                    "try another task, a larger budget or other problems",
                )
            self._chunks[k] = list(made.values())[: self.config.chunk]
        return self._chunks[k]

    def __getitem__(self, idx: int) -> dict:
        if not 0 <= idx < self.size:
            raise IndexError(f"{self.name}: index {idx} outside 0..{self.size - 1}")
        records = self._chunk(idx // self.config.chunk)
        record = records[idx % self.config.chunk % len(records)]
        c = self.config
        shown = proof(record, c.budget)
        return {
            "question": prompt(record, c.pddl),
            "answer": shown.pop("answer"),
            "metadata": {
                "source_dataset": self.name,
                "source_index": idx,
                "form": c.form,
                "task": c.task,
                "record": record,
                "domain_pddl": record["PDDL_domain"],
                "problem_pddl": record["PDDL_problem"],
                "proof": shown,
                "difficulty": {
                    "walk": [c.min_walk, c.max_walk],
                    "plan_share": c.plan_share,
                    "steps": list(self.options(0).steps),
                },
            },
        }

    def score_answer(self, answer, entry: dict) -> float:
        """acptools' grader on the entry's record: 1.0 right, 0.0 wrong or unknown (partial credit
        with credit="partial")."""
        return reward(entry["metadata"]["record"], answer, self.config.credit, self.config.budget)


def smallest(domain_text: str, problems: list[str], n: int) -> list[str]:
    """The n problems with the fewest fluent atoms (ties: shorter text, then given order), in the
    given order; all of them when n is 0."""
    if not n or n >= len(problems):
        return problems
    size = {k: (describe(task_for(domain_text, p)).num_propositions, len(p), k) for k, p in enumerate(problems)}
    keep = sorted(sorted(size, key=size.get)[:n])
    return [problems[k] for k in keep]


class AcpCurriculum(BaseCurriculum):
    """Levels: longer random walks, more optimal-plan states, longer ARB action sequences, larger
    problems (the N smallest of those given)."""

    config_cls = AcpConfig

    def __init__(self):
        super().__init__(type(self).__name__, self.config_cls)
        self._define_attributes(
            RangeAttributeDefinition(
                name="walk",
                levels=WALK_LEVELS,
                lower_field_name="min_walk",
                upper_field_name="max_walk",
                description="random steps from the init",
            ),
            ScalarAttributeDefinition(
                name="plan_share",
                levels=PLAN_SHARE_LEVELS,
                field_name="plan_share",
                description="share of states on optimal plans",
            ),
            RangeAttributeDefinition(
                name="steps",
                levels=STEP_LEVELS,
                lower_field_name="min_steps",
                upper_field_name="max_steps",
                description="ARB action sequence length",
            ),
            ScalarAttributeDefinition(
                name="problems",
                levels=PROBLEM_LEVELS,
                field_name="max_problems",
                description="the N smallest problems given",
            ),
        )


def families() -> dict[str, tuple[str, str]]:
    """Every family's name -> (form, task)."""
    return {f"{PREFIX}_{form}_{task}": (form, task) for form, tasks in TASKS.items() for task in tasks}


def _classes(name: str, form: str, task: str):
    config = make_dataclass(
        f"{name}_config", [("form", str, field(default=form)), ("task", str, field(default=task))], bases=(AcpConfig,)
    )
    curriculum = type(f"{name}_curriculum", (AcpCurriculum,), {"config_cls": config})
    return config, curriculum


def register() -> list[str]:
    """Register every family with reasoning-gym (again: a no-op); their names."""
    for name, (form, task) in families().items():
        if name not in DATASETS:
            config, curriculum = _classes(name, form, task)
            register_dataset(name, AcpDataset, config, curriculum)
    return list(families())


register()
