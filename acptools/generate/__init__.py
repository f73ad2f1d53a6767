"""Fresh questions with proven answers from any PDDL, in the forms of ACPBench Hard, ACPBench (yes/no
and 4-choice) and ActionReasoningBench.

    from acptools.generate import generate, Options, write_jsonl
    out = generate(Path("domain.pddl"), [Path("p1.pddl"), Path("p2.pddl")],
                   Options(form="mcq", tasks=("app", "land"), n=20, seed=7))
    write_jsonl(out.records, "records.jsonl")
    out.made, out.dropped          # per task: records made; attempts dropped, by reason

Every answer is computed by acptools with its proof, within `Options.budget` CPU seconds per proof;
an item whose proof does not finish is dropped and counted, never written with a guessed answer.
The same seed gives byte-identical output. Records carry the PDDL (the problem's init is the
question's state); `acptools.scoring.score_response` grades answers to every form. See
docs/generating.md.
"""

from .records import dumps, make_record, record_id, write_jsonl
from .run import ALIASES, TASKS, Generated, Options, generate
from .states import Difficulty
from .templates import Templates, for_domain

__all__ = [
    "generate",
    "Options",
    "Generated",
    "Difficulty",
    "TASKS",
    "ALIASES",
    "write_jsonl",
    "dumps",
    "make_record",
    "record_id",
    "Templates",
    "for_domain",
]
