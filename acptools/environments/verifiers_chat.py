"""The harness every acptools verifiers environment plays through: a chat loop run in-process (no
program to install in a sandbox), every model call sent to verifiers' interception endpoint so the
trace records it. With `mcp_command` set, the model may call the tools of that MCP server, started
as a subprocess over stdio for the rollout (e.g. `acptools-server --profile policy`).
"""

from __future__ import annotations

import json
import shutil
import sys
from contextlib import AsyncExitStack, asynccontextmanager

try:
    import verifiers.v1 as vf
except ImportError as e:  # the environments are an optional extra
    raise ImportError(
        f"acptools' verifiers environments need verifiers ({e}): pip install 'acptools[verifiers]' (Python 3.11+)"
    ) from e
from openai import AsyncOpenAI
from pydantic import Field
from verifiers.v1.dialects.chat import message_to_wire

from ..errors import AcpError

SERVER = "acptools-server"


class ChatHarnessConfig(vf.HarnessConfig):
    """mcp_command: an MCP server over stdio whose tools the model may call (empty: none);
    max_tool_rounds: model calls per segment while it keeps calling tools."""

    mcp_command: list[str] = Field(default_factory=list)
    max_tool_rounds: int = Field(8, ge=1)


def server_command(profile: str | None = "policy") -> list[str]:
    """The command that starts this installation's acptools-server (under a tool profile)."""
    exe = shutil.which(SERVER)
    base = [exe] if exe else [sys.executable, "-m", "acptools_server"]
    return base + ["--log-level", "WARNING"] + (["--profile", profile] if profile else [])


class StdioTools:
    """An MCP server's tools in the OpenAI chat format, called through the official MCP client."""

    def __init__(self, client):
        self.client = client
        self.specs: list[dict] = []

    async def load(self) -> StdioTools:
        for tool in (await self.client.list_tools()).tools:
            self.specs.append(
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description or "",
                        "parameters": tool.input_schema,
                    },
                }
            )
        return self

    async def call(self, name: str, arguments: str) -> str:
        """The tool's reply as text (an error the server reports is returned to the model as text)."""
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError as e:
            return f"error: the arguments are not JSON ({e.msg})"
        result = await self.client.call_tool(name, args if isinstance(args, dict) else {})
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        return f"error: {text}" if result.is_error else text


@asynccontextmanager
async def stdio_tools(command: list[str]):
    """The tools of the MCP server `command` starts (None when the command is empty)."""
    if not command:
        yield None
        return
    from mcp import Client, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=list(command[1:]))
    async with AsyncExitStack() as stack:
        try:  # a stdio transport, which mcp's Client takes in 2.0 as in 2.3
            client = await stack.enter_async_context(Client(stdio_client(params)))
        except OSError as e:
            raise AcpError(
                f"cannot start the MCP server {command[0]!r}: {e}",
                "mcp_command",
                "install acptools (it provides acptools-server) or fix the command",
            ) from None
        yield await StdioTools(client).load()


class ChatHarness(vf.Harness[ChatHarnessConfig]):
    """Send the conversation to the model; run the tool calls it makes until it answers in text."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_MCP = False
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, tool_interception_url=None
    ) -> vf.ProgramResult:
        system, prompt = self.resolve_prompt(data)
        messages = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt:
            messages.extend(message_to_wire(m) for m in prompt)
        client = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        try:
            async with stdio_tools(self.tool_command()) as tools:
                await self._converse(client, ctx.model, messages, tools)
        finally:
            await client.close()
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")

    def tool_command(self) -> list[str]:
        """The MCP server whose tools the model may call (empty: no tools)."""
        return list(self.config.mcp_command)

    async def _converse(self, client, model: str, messages: list[dict], tools) -> None:
        for _ in range(self.config.max_tool_rounds):
            kwargs = {"tools": tools.specs} if tools is not None and tools.specs else {}
            reply = (await client.chat.completions.create(model=model, messages=messages, **kwargs)).choices[0].message
            messages.append(reply.model_dump(exclude_none=True))
            if not reply.tool_calls or tools is None:
                return
            for call in reply.tool_calls:
                text = await tools.call(call.function.name, call.function.arguments)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


class LocalEnvConfig(vf.EnvConfig):
    """One seat, the policy under evaluation or training, whose harness runs on this machine (the
    in-process chat loop needs no sandbox; verifiers' default runtime is a remote one)."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())


class LocalEnv(vf.Env[LocalEnvConfig]):
    """verifiers' single-agent episode: the seat plays the task once."""

    async def run(self, task, agents) -> None:
        await agents.agent.run(task)
