"""OpenEnv environment `acptools`: a policy acts in PDDL planning tasks one ground action per step, each
step graded against h* by acptools; tool use over acptools' MCP tools where the server allows it.

    acptools-openenv --port 8000                 # the server (pip install 'acptools[openenv]')
    from acptools_openenv import AcptoolsAction, AcptoolsEnv   # the typed client

The layout is OpenEnv's: models.py (action, observation, state), client.py (EnvClient),
server/ (the Environment, the FastAPI app), openenv.yaml. See docs/training.md and README.md here.
"""

from .client import AcptoolsEnv
from .models import AcptoolsAction, AcptoolsObservation, AcptoolsState

__all__ = ["AcptoolsAction", "AcptoolsObservation", "AcptoolsState", "AcptoolsEnv"]
