"""The acptools environment: a policy acts in a PDDL task one ground action per step, every step graded
against h* (acptools.environments.session plays the episode: verdicts, regret, rewards, endings);
where the server allows tool use, a step may call one of acptools' MCP tools instead (OpenEnv's
MCPEnvironment, over the in-process acptools MCP server and the tool profile's tools).

One instance per WebSocket session; every instance of a process shares the Backend (the MCP server,
its task store and limits).
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
from openenv.core.env_server.types import EnvironmentMetadata

from acptools import __version__
from acptools.environments.session import PolicySession, Report

try:
    from ..models import AcptoolsAction, AcptoolsObservation, AcptoolsState
    from .backend import Backend
except ImportError:  # run from the environment's folder (uvicorn server.app:app), as OpenEnv's layout allows
    from models import AcptoolsAction, AcptoolsObservation, AcptoolsState
    from server.backend import Backend

TOOLS_OFF = (
    "tool use is off on this server: start it with --tool-profile policy (or qa, qa:KIND, all) to "
    "let steps call acptools' tools"
)


class AcptoolsEnvironment(MCPEnvironment):
    """reset(...) starts an episode (see acptools.environments.reset_args for what it may ask for);
    step(AcptoolsAction) plays an action, calls a tool, or lists the tools."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, backend: Backend):
        self.backend = backend
        super().__init__(backend.mcp_server)
        self.session = PolicySession(backend.settings, backend.starts, backend.load)
        self._state = AcptoolsState(episode_id=None, step_count=0)

    def _validate_tool_names(self, mcp_server: Any) -> None:
        """Checked once for every session, when the backend was made (it lists the tools of a profile)."""

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="acptools",
            version=__version__,
            documentation_url="https://github.com/acptools/acptools/blob/main/docs/training.md",
            description="Act in PDDL planning tasks one ground action per step; every step graded against h* "
            "(valid, regret, hallucinated, unparsed), with acptools' MCP tools where allowed.",
        )

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> AcptoolsObservation:
        report = self.session.reset(seed=seed, **kwargs)
        self._state = AcptoolsState(
            episode_id=episode_id or str(uuid4()),
            step_count=0,
            start=report.start,
            task_id=report.task_id,
            h_star_start=report.h_star_after,
        )
        return self._observe(report)

    def _step_impl(self, action: AcptoolsAction, timeout_s: float | None = None, **kwargs: Any) -> AcptoolsObservation:
        report = self.session.act(action.action)
        self._state.step_count += 1
        return self._observe(report)

    def step(self, action: AcptoolsAction, timeout_s: float | None = None, **kwargs: Any) -> AcptoolsObservation:
        if action.type == "act":
            return self._step_impl(action, timeout_s)
        refused = self._gate(action)
        if refused is not None:
            return refused
        return self._tool_observation(action, super().step(_mcp(action), timeout_s=timeout_s))

    async def step_async(
        self, action: AcptoolsAction, timeout_s: float | None = None, **kwargs: Any
    ) -> AcptoolsObservation:
        if action.type == "act":
            return await super().step_async(action, timeout_s=timeout_s)  # _step_impl, in a thread
        refused = self._gate(action)
        if refused is not None:
            return refused
        return self._tool_observation(action, await super().step_async(_mcp(action), timeout_s=timeout_s))

    def _gate(self, action: AcptoolsAction) -> AcptoolsObservation | None:
        """An observation refusing the tool call (tool use off, or past the episode's tool calls, which
        ends it), or None: call it, with the session's task where the tools find it."""
        self._state.step_count += 1
        if not self.backend.tools_on:
            return self._tool_observation(action, None, TOOLS_OFF)
        if action.type == "list_tools":
            return None
        over = self.session.tool_call()
        if over is not None:
            return self._observe(
                over,
                tool_name=action.tool_name,
                tool_error=f"more than {self.session.settings.max_tool_calls} tool calls: the episode is over",
            )
        if self.session.episode is not None:
            self.backend.keep(self.session.episode.task)
        return None

    def _tool_observation(self, action: AcptoolsAction, found: Any, error: str | None = None) -> AcptoolsObservation:
        """The episode as it stands, with the tool call's result or error (or the tool list)."""
        fields: dict[str, Any] = {"tool_name": action.tool_name, "tool_error": error}
        if found is not None and action.type == "list_tools":
            fields["tools"] = [tool.model_dump() for tool in found.tools]
            fields["tool_error"] = found.metadata.get("error")
        elif found is not None:
            fields["tool_result"] = _tool_result(found.result)
            fields["tool_error"] = found.error.message if found.error is not None else None
        report = self.session.now()
        return self._observe(report, **fields) if report is not None else AcptoolsObservation(reward=0.0, **fields)

    def _observe(self, report: Report, **tool_fields: Any) -> AcptoolsObservation:
        state = self._state
        state.steps, state.tool_calls = report.steps, report.tool_calls
        state.done_reason, state.solved = report.done_reason, report.solved
        return AcptoolsObservation(**report.to_dict(), **tool_fields)

    @property
    def state(self) -> AcptoolsState:
        return self._state


def _mcp(action: AcptoolsAction) -> CallToolAction | ListToolsAction:
    """OpenEnv's own MCP action for a tool-shaped AcptoolsAction."""
    if action.type == "list_tools":
        return ListToolsAction()
    return CallToolAction(tool_name=action.tool_name, arguments=action.arguments)


def _tool_result(result: Any) -> Any:
    """A tool call's structured result, else the text it returned (None: none)."""
    if result is None:
        return None
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return structured
    texts = [c.text for c in getattr(result, "content", None) or [] if getattr(c, "text", None) is not None]
    return "\n".join(texts) if texts else None
