"""verifiers environment `acptools-policy`: the model acts in a PDDL task turn by turn, every step graded
against h* (see acptools.environments.verifiers_policy). Loaded by name: `vf-eval acptools-policy ...`."""

from acptools.environments.verifiers_policy import PolicyEnv, PolicyHarness, PolicyTaskset

__all__ = ["PolicyTaskset", "PolicyHarness", "PolicyEnv"]
