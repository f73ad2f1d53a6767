"""verifiers environment `acptools-tools`: questions with proven answers; the model may call acptools' MCP
tools served by an `acptools-server` subprocess under a tool profile (see
acptools.environments.verifiers_tools). Loaded by name: `vf-eval acptools-tools ...`."""

from acptools.environments.verifiers_tools import ToolsEnv, ToolsHarness, ToolsTaskset

__all__ = ["ToolsTaskset", "ToolsHarness", "ToolsEnv"]
