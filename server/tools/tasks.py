"""Tools and resources about tasks: server_info, list_examples, load_task, and the PDDL resources."""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import json
from typing import Annotated

from acptools_server.config import SERVER_NAME, TOOL_NAMES, package_version
from acptools_server.holdings import ToolCacheMiss, example_ids
from acptools_server.models import ExampleInfo, ListExamplesResult, LoadTaskResult, ServerInfo
from acptools_server.state import state_of
from acptools_server.tools.common import LOADS, scorer, tool
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources.types import TextResource
from pydantic import Field

from acptools import examples, planners
from acptools import load_task as load_example_task
from acptools.describe import describe

EXAMPLE_URI = "acptools://examples/{name}/{part}.pddl"
SUMMARY_ITEMS = 1000  # items a cut list of a task summary keeps at first (fewer if it still does not fit)
RESPONSE_OVERHEAD = 2000  # bytes of a response around the result


@tool("Server information")
def server_info(ctx: Context) -> ServerInfo:
    """Server version, transport, tool profile, limits and load (tasks, bytes held, searches running). No
    inputs."""
    state = state_of(ctx)
    config = state.config
    runner = state.runner
    proofs = state.truth.store
    return ServerInfo(
        name=SERVER_NAME,
        version=package_version(),
        mcp_sdk_version=importlib.metadata.version("mcp"),
        transport=config.transport,
        filesystem_access=config.filesystem_access,
        root=str(config.root) if config.root is not None else None,
        limits=config.limits.model_dump(),
        profile=config.profile,
        hidden_tools=[n for n in TOOL_NAMES if n not in config.visible_tools()],
        tasks_loaded=len(state.tasks),
        episodes_live=len(state.episodes),
        memory_bytes=state.memory.bytes_held(),
        searches_running=runner.running,
        searches_waiting=runner.waiting,
        searches_cancelled=runner.cancelled,
        searches_stopping=runner.stopping,
        loads_running=state.tasks.quick_loads.running + state.tasks.big_loads.running,
        planners_running=planners.running(),
        proof_store=None if proofs is None else str(proofs.path),
        scorer_available=scorer() is not None,
    )


@functools.cache
def example_infos() -> tuple[ExampleInfo, ...]:
    """The bundled examples, described once per process (loaded apart from the task store, so listing
    them never evicts a caller's task)."""
    ids = {name: task_id for task_id, name in example_ids().items()}
    infos = []
    for name in examples.names():
        task = load_example_task(*examples.texts(name))
        infos.append(
            ExampleInfo(
                name=name,
                task_id=ids[name],
                domain_name=task.domain.name,
                problem_name=task.problem.name,
                num_objects=len(task.types.objects),
                num_possible_actions=task.num_possible_actions,
                goal=task.names(task.goal_atoms),
                domain_uri=EXAMPLE_URI.format(name=name, part="domain"),
                problem_uri=EXAMPLE_URI.format(name=name, part="problem"),
            )
        )
    return tuple(infos)


@tool("Bundled examples")
def list_examples() -> ListExamplesResult:
    """The bundled example tasks (one per domain): task_ids that work without load_task, PDDL resources.
    No inputs."""
    return ListExamplesResult(examples=list(example_infos()))


@tool("Load a PDDL task", LOADS)
async def load_task(
    ctx: Context,
    domain: Annotated[str | None, Field(description="PDDL text (or a path below --root).")] = None,
    problem: Annotated[str | None, Field(description="PDDL text (or a path below --root).")] = None,
    example: Annotated[str | None, Field(max_length=200)] = None,
) -> LoadTaskResult:
    """Parse and ground a PDDL task: its task_id and a summary (objects, predicates, actions,
    init, goal; long lists cut). Inputs: domain and problem, or example."""
    state = state_of(ctx)
    tasks = state.tasks
    from_file = False
    if example is not None:
        if domain is not None:
            raise ToolError(
                "pass either example=... (optionally with problem=...) or domain=... and problem=..., "
                "not both example and domain"
            )
        domain_text, problem_text = examples.texts(example.strip())
        source = f"example:{example.strip()}"
        if problem is not None:
            problem_text, from_file = tasks.read_source(problem, "problem")
            source += "+problem"
    else:
        if domain is None or problem is None:
            missing = " and ".join(n for n, v in (("domain", domain), ("problem", problem)) if v is None)
            raise ToolError(
                f"missing {missing}: pass domain=... and problem=... as PDDL text, or example=... with "
                "one of: " + ", ".join(examples.names())
            )
        domain_text, d_file = tasks.read_source(domain, "domain")
        problem_text, p_file = tasks.read_source(problem, "problem")
        from_file = d_file or p_file
        source = "files" if from_file else "text"
    task, cached, evicted = await tasks.load(domain_text, problem_text)
    result = LoadTaskResult(
        **dataclasses.asdict(describe(task)), source=source, cached=cached, evicted_task_ids=evicted
    )
    return fit_summary(result, state.config.limits.max_response_bytes)


def fit_summary(result: LoadTaskResult, max_bytes: int) -> LoadTaskResult:
    """The summary of a big task with its long lists cut until it fits in a response (sent twice: as text and
    as structured content); the task's PDDL resources hold everything."""
    keep = SUMMARY_ITEMS
    short = result
    while 2 * len(short.model_dump_json()) > max_bytes - RESPONSE_OVERHEAD and keep:
        short = result.model_copy(
            update=dict(
                objects_by_type={t: objs[:keep] for t, objs in result.objects_by_type.items()},
                init=result.init[:keep],
                static_facts=result.static_facts[:keep],
                goal=result.goal[:keep],
                goal_formula=result.goal_formula[: keep * 20],
                truncated=True,
            )
        )
        keep //= 4
    return short


TOOLS = (server_info, list_examples, load_task)


# ---- resources ---------------------------------------------------------------------------------


def examples_index() -> str:
    """JSON list of the bundled example tasks (what list_examples returns)."""
    return json.dumps([e.model_dump() for e in example_infos()], indent=1)


def task_domain(task_id: str, ctx: Context) -> str:
    """The PDDL domain text of a loaded task."""
    return _task_texts(ctx, task_id)[0]


def task_problem(task_id: str, ctx: Context) -> str:
    """The PDDL problem text of a loaded task."""
    return _task_texts(ctx, task_id)[1]


def _task_texts(ctx: Context, task_id: str) -> tuple[str, str]:
    try:
        task = state_of(ctx).tasks.get(task_id)
    except ToolCacheMiss as exc:
        raise ResourceNotFoundError(str(exc)) from None
    return task.domain_text, task.problem_text


def example_resources() -> list[TextResource]:
    """The PDDL of every bundled example, one resource per file."""
    resources = []
    for name in examples.names():
        for part, text in zip(("domain", "problem"), examples.texts(name), strict=True):
            resources.append(
                TextResource(
                    uri=EXAMPLE_URI.format(name=name, part=part),
                    name=f"{name}-{part}",
                    title=f"{name}: {part} PDDL",
                    description=f"PDDL {part} of the bundled example {name!r}.",
                    mime_type="text/plain",
                    text=text,
                )
            )
    return resources
