"""Planning environments in the conventions RL trainers use, every reward proven by acptools.

    import gymnasium, acptools.environments.gymnasium_env         # registers acptools/Planning-v0
    env = gymnasium.make("acptools/Planning-v0")                   # text state in, text action out

    import reasoning_gym, acptools.environments.reasoning_gym_datasets   # registers the acp_* families
    data = reasoning_gym.create_dataset("acp_hard_nexta", size=20, seed=1)

    vf-eval acptools-qa ...        # verifiers: acptools-qa, acptools-policy, acptools-tools (environments/)

Each third-party package is optional (`pip install 'acptools[rl]'`): importing acptools, or this
package, imports none of them; only the module for a convention does. `sources` (where tasks come
from) and `grading` (rewards from the graders) are shared and need nothing extra. See docs/training.md.
"""
