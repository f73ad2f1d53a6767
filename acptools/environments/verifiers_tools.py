"""A tool-use verifiers environment (`acptools-tools`): the questions of `acptools-qa` (same sources,
same graders), and the model may call acptools' MCP tools, served by a real `acptools-server`
subprocess over stdio for each rollout under a tool profile (default `policy`: the tools that give
plans or optimal actions away are hidden; `qa` hides every tool that answers an ACP question).

    vf-eval acptools-tools --env.taskset.data acpbench-hard:test:app -n 5 --model M --client.base-url URL \\
        --env.agent.harness.profile policy
"""

from __future__ import annotations

from pydantic import Field

from .verifiers_chat import ChatHarness, ChatHarnessConfig, LocalEnv, LocalEnvConfig, server_command, vf
from .verifiers_qa import QaTask, QaTaskset, records, task_data

HINT = (
    "You may call the acptools tools: load_task(domain=..., problem=...) with the PDDL above gives the "
    "task_id the other tools take; the question's state is the problem's init."
)


class ToolsTaskset(QaTaskset):
    """The questions of a record source or a generated family, with the PDDL always in the question
    (the model loads it on the server) and the tools hint."""

    def load(self):
        for record in records(self.config):
            yield QaTask(task_data(record, True, HINT), self.config.task)


class ToolsHarnessConfig(ChatHarnessConfig):
    """profile: the acptools-server tool profile (policy, qa, qa:KIND[+KIND], or None for every tool);
    mcp_command, when set, replaces the acptools-server command."""

    profile: str | None = "policy"
    max_tool_rounds: int = Field(12, ge=1)


class ToolsHarness(ChatHarness, vf.Harness[ToolsHarnessConfig]):
    """The in-process chat loop with acptools-server's tools."""

    config: ToolsHarnessConfig

    def tool_command(self) -> list[str]:
        return list(self.config.mcp_command) or server_command(self.config.profile)


class ToolsEnvConfig(LocalEnvConfig):
    """The seat plays through ToolsHarness by default, so `--env.agent.harness.profile` needs no id."""

    # constructed unvalidated: validating would import acptools_tools, the package being imported
    agent: vf.AgentConfig = vf.AgentConfig.model_construct(
        harness=ToolsHarnessConfig(id="acptools-tools"), runtime=vf.SubprocessConfig()
    )


class ToolsEnv(LocalEnv, vf.Env[ToolsEnvConfig]):
    """verifiers' single-agent episode, with the tools harness as the seat's default."""


__all__ = ["ToolsTaskset", "ToolsHarness", "ToolsEnv", "ToolsHarnessConfig", "ToolsEnvConfig"]
