"""The acptools environment's typed action, observation and state (OpenEnv's pydantic models).

An action is one of three shapes: a ground action to play, `{"action": "(board c0 l0)"}` (the
default: `type` "act"); a tool call, `{"type": "call_tool", "tool_name": ..., "arguments": {...}}`;
or `{"type": "list_tools"}`. The observation carries what a trainer logs: the state, the goal, the
applicable actions (where shown), the verdict with its reason and proof, h* before and after, the
regret, the reward, done and why; a tool call's result or error.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field, model_validator


class AcptoolsAction(Action):
    """One step: play a ground action (`action`), call one of acptools' tools, or list them."""

    type: Literal["act", "call_tool", "list_tools"] = Field(
        "act", description="act: play `action`; call_tool: call `tool_name` with `arguments`; list_tools"
    )
    action: str | None = Field(None, description="a ground action such as '(board c0 l0)', or a reply that holds one")
    tool_name: str | None = Field(None, description="the tool to call (type call_tool)")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments (type call_tool)")

    @model_validator(mode="before")
    @classmethod
    def _infer_type(cls, data: Any) -> Any:
        """A payload with a tool_name and no type is a tool call."""
        if isinstance(data, dict) and "type" not in data and "tool_name" in data:
            return {**data, "type": "call_tool"}
        return data

    @model_validator(mode="after")
    def _complete(self) -> AcptoolsAction:
        if self.type == "act" and self.action is None:
            raise ValueError("an action step needs 'action': a ground action such as '(board c0 l0)'")
        if self.type == "call_tool" and not self.tool_name:
            raise ValueError("a tool call needs 'tool_name' (and 'arguments'); list them with type 'list_tools'")
        return self


class AcptoolsObservation(Observation):
    """What a reset or a step shows (`reward` and `done` are OpenEnv's own fields)."""

    start: str = Field("", description="where the episode's task and start state come from")
    task_id: str | None = Field(None, description="the task's id, which the tools take")
    state: list[str] = Field(default_factory=list, description="the fluent atoms true now")
    goal: str = Field("", description="the goal formula (PDDL)")
    applicable_actions: list[str] | None = Field(None, description="the actions applicable now (None: not shown)")
    text: str = Field("", description="the observation as text: state, goal, applicable actions, steps taken")
    verdict: str | None = Field(
        None, description="applied, inapplicable, unparsed or hallucinated (None: a reset or a tool call)"
    )
    action: str | None = Field(None, description="the action as read (canonical), or the text when unreadable")
    reason: str = Field(
        "",
        description="why the step was not applied (unsatisfied preconditions, an unknown name "
        "with a did-you-mean, nothing readable)",
    )
    proof: dict[str, Any] = Field(
        default_factory=dict,
        description="how h* of the state now is known "
        "(h_star_how); an applied step's effects, and its proven bounds when undecided",
    )
    h_star_before: int | None = Field(None, description="h* of the state before the step")
    h_star_after: int | None = Field(
        None, description="h* of the state now (None: the goal is unreachable, or undecided when h_star_known is false)"
    )
    h_star_known: bool = Field(True, description="false when the budget ran out before h* was decided")
    regret: int | None = Field(
        None,
        description="h*(after) + 1 - h*(before) of an applied step (None: not applied, undecided, or into a dead end)",
    )
    optimal: bool | None = Field(None, description="whether the applied step starts an optimal plan")
    done_reason: str | None = Field(None, description="goal, dead_end, step_limit or tool_limit once done")
    dead_end: bool = Field(False, description="the goal is proven unreachable from the state now")
    solved: bool = Field(False, description="the goal holds")
    steps: int = Field(0, description="action attempts in the episode (applied or not)")
    tool_calls: int = Field(0, description="tool calls counted in the episode")
    max_steps: int = Field(0, description="attempts allowed in an episode")
    summary: dict[str, Any] | None = Field(None, description="the episode's summary once done (acptools.episode)")
    tool_name: str | None = Field(None, description="the tool called")
    tool_result: Any = Field(None, description="the tool's structured result")
    tool_error: str | None = Field(None, description="why the tool call failed or was refused")
    tools: list[dict[str, Any]] | None = Field(None, description="the tools offered (type list_tools)")


class AcptoolsState(State):
    """The session's episode: where it started, its task, the attempts and tool calls, done and why
    (`step_count` counts every step, tool calls included)."""

    start: str = ""
    task_id: str | None = None
    steps: int = 0
    tool_calls: int = 0
    done_reason: str | None = None
    solved: bool = False
    h_star_start: int | None = None
