"""Grade free-text answers to the eight ACPBench Hard questions: exactly, with partial credit and reasons.

    from acptools.scoring import score_response, score_answer
    item = score_response(record, "[(board c1 l0), (sail l0 l1)]")        # exact semantics (the default)
    item.score, item.verdict, item.reason, item.metrics, item.witness
    score_response(record, text, semantics="reference")                    # the published lm-eval scorer's rules
    score_answer("nexta", "(sail l0 l1)", task=load_task(d, p), state=[...])  # any loaded task

Exact semantics computes the truth from the record's PDDL (docs/scoring.md); per-state truths are
cached (bounded LRU), so many responses to one question cost one computation.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..truth import cache_sizes, clear_caches
    from .api import SEMANTICS, gold_response, score_answer, score_response
    from .items import VERDICTS, ItemScore

# exported names and their modules, imported on first use: a warm run (acptools.scoring.batch reading
# stored grades) does not pay for the engine
_EXPORTS = {
    "cache_sizes": "..truth",
    "clear_caches": "..truth",
    "SEMANTICS": ".api",
    "gold_response": ".api",
    "score_answer": ".api",
    "score_response": ".api",
    "VERDICTS": ".items",
    "ItemScore": ".items",
}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'acptools.scoring' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ItemScore",
    "score_response",
    "score_answer",
    "gold_response",
    "SEMANTICS",
    "VERDICTS",
    "clear_caches",
    "cache_sizes",
]
