"""The acptools environment's typed client (OpenEnv's EnvClient over the /ws session).

    from acptools_openenv import AcptoolsAction, AcptoolsEnv
    with AcptoolsEnv(base_url="http://localhost:8000").sync() as env:
        result = env.reset(example="ferry")
        result = env.step(AcptoolsAction(action="(board c0 l0)"))
        result.observation.verdict, result.observation.regret, result.reward, result.done

A client that knows nothing of acptools plays the same server with OpenEnv's GenericEnvClient and
plain dicts: reset(domain=PDDL, problem=PDDL), step({"action": "(board c0 l0)"}).
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult

from .models import AcptoolsAction, AcptoolsObservation, AcptoolsState


class AcptoolsEnv(EnvClient[AcptoolsAction, AcptoolsObservation, AcptoolsState]):
    """One WebSocket session (one episode at a time) on an acptools environment server."""

    def _step_payload(self, action: AcptoolsAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"}, exclude_none=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[AcptoolsObservation]:
        observation = AcptoolsObservation(
            **payload.get("observation", {}), reward=payload.get("reward"), done=payload.get("done", False)
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> AcptoolsState:
        return AcptoolsState(**payload)
