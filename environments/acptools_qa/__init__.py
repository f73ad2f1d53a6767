"""verifiers environment `acptools-qa`: single-turn questions with proven answers, graded by acptools
(see acptools.environments.verifiers_qa). Loaded by verifiers by name: `vf-eval acptools-qa ...`."""

from acptools.environments.verifiers_qa import LocalEnv, QaHarness, QaTaskset

__all__ = ["QaTaskset", "QaHarness", "LocalEnv"]
