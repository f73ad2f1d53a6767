"""Hostile and odd inputs to real server processes (loopback only): files below --root opened without a
race, bytes the SDK cannot read, deep nesting, argument mistakes, NUL characters, crashed planners,
browser origins, and the opt-in proof store. Regression tests of issue 10; bounded in count and time.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path

import httpx2

from acptools import examples, load_task
from acptools.proofs.store import ProofStore
from tests.support.data import records
from tests.support.load import slack
from tests.support.server_procs import PROTOCOL, StdioServer, start_http, stop_process

FERRY_DOMAIN, FERRY_PROBLEM = examples.texts("ferry")


# ---- 6. --root without a race ----------------------------------------------------------------------


def _write(folder: Path, domain: str, problem: str) -> None:
    folder.mkdir(parents=True)
    (folder / "domain.pddl").write_text(domain)
    (folder / "problem.pddl").write_text(problem)


def test_a_folder_swapped_for_a_symlink_never_leads_out_of_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    _write(root / "pddl", FERRY_DOMAIN, FERRY_PROBLEM)
    secret = examples.texts("rover")
    _write(outside / "pddl", *secret)
    inside_id, outside_id = load_task(FERRY_DOMAIN, FERRY_PROBLEM).id, load_task(*secret).id
    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:  # the folder below the root, again and again replaced by a link out of it
        while not stop.is_set():
            os.rename(root / "pddl", root / "pddl.real")
            os.symlink(outside / "pddl", root / "pddl")
            time.sleep(0.0005)
            os.unlink(root / "pddl")
            os.rename(root / "pddl.real", root / "pddl")
            swaps[0] += 1
            time.sleep(0.001)

    outcomes: dict[str, int] = {}
    with StdioServer(tmp_path, "--root", str(root)) as server:
        thread = threading.Thread(target=swapper, daemon=True)
        thread.start()
        try:
            for _ in range(400):
                result = server.call("load_task", domain="pddl/domain.pddl", problem="pddl/problem.pddl")
                if result.get("isError"):
                    text = result["content"][0]["text"]
                    kind = (
                        "internal"
                        if "internal error" in text
                        else "outside"
                        if "outside the allowed root" in text
                        else "missing"
                        if "no such file" in text
                        else text
                    )
                else:
                    kind = {inside_id: "inside", outside_id: "ESCAPED"}[result["structuredContent"]["task_id"]]
                outcomes[kind] = outcomes.get(kind, 0) + 1
        finally:
            stop.set()
            thread.join(timeout=slack(10))
        missing = server.err("load_task", domain="pddl/nope.pddl", problem="pddl/problem.pddl")
        os.mkfifo(root / "fifo.pddl")  # a FIFO must not block the server
        fifo = server.err("load_task", domain="fifo.pddl", problem="pddl/problem.pddl", timeout=30)
        (root / "link_in").symlink_to(root / "pddl")
        (root / "link_out").symlink_to(outside / "pddl")
        via_link = server.ok("load_task", domain="link_in/domain.pddl", problem="pddl/../pddl/problem.pddl")
        out_link = server.err("load_task", domain="link_out/domain.pddl", problem="pddl/problem.pddl")
        dotdot = server.err("load_task", domain="../outside/pddl/domain.pddl", problem="pddl/problem.pddl")
    print(f"\n{swaps[0]} swaps during 400 loads: {outcomes}")
    assert "ESCAPED" not in outcomes and "internal" not in outcomes, outcomes
    assert set(outcomes) <= {"inside", "outside", "missing"}, outcomes
    assert outcomes.get("inside", 0) > 0 and outcomes.get("outside", 0) + outcomes.get("missing", 0) > 0, outcomes
    assert "no such file below the root: 'pddl/nope.pddl'" in missing
    assert "not a regular file" in fifo
    assert via_link["task_id"] == inside_id
    assert "outside the allowed root" in out_link and "outside the allowed root" in dotdot


# ---- 8. smaller items ------------------------------------------------------------------------------


def test_a_lone_surrogate_over_stdio_gets_an_error_reply(tmp_path: Path) -> None:
    with StdioServer(tmp_path) as server:
        server.write(
            b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"load_task",'
            b'"arguments":{"example":"fe\\ud800rry"}}}'
        )
        reply = server.wait(77, 30)
        server.write(b'{"jsonrpc":"2.0","id":78,"method":"tools/call","params":{"name":"server_info"')
        broken = server.wait(None, 30)
        assert server.info()["name"] == "acptools"  # still serving
    assert reply["error"]["code"] == -32600 and "lone surrogate" in reply["error"]["message"]
    assert broken["error"]["code"] == -32700


def _nested(formula: str, levels: int) -> str:
    return "(and " * levels + formula + ")" * levels


def test_deep_formulas_read_up_to_a_clear_limit(tmp_path: Path) -> None:
    precondition = "(and (at ?car ?loc) (at-ferry ?loc) (empty-ferry))"
    deep_domain = FERRY_DOMAIN.replace(precondition, _nested(precondition, 900), 1)
    goal = "(and (at c0 l0) (at c1 l2))"
    deep_problem = FERRY_PROBLEM.replace(goal, _nested(goal, 900), 1)
    too_deep = FERRY_PROBLEM.replace(goal, _nested(goal, 10_000), 1)
    assert deep_domain != FERRY_DOMAIN and deep_problem != FERRY_PROBLEM
    with StdioServer(tmp_path) as server:
        tid = server.ok("load_task", domain=deep_domain, problem=deep_problem)["task_id"]
        planned = server.ok("plan", task_id=tid, budget=30)
        refused = server.err("load_task", domain=FERRY_DOMAIN, problem=too_deep)
        assert server.info()["name"] == "acptools"
    assert planned["answer"] is True and planned["length"] == 4
    assert re.search(r"problem: the PDDL nests 100\d\d parentheses deep, more than the server reads \(2000\)", refused)
    assert "\n" not in refused


def test_argument_mistakes_are_one_line_errors_with_a_did_you_mean(tmp_path: Path) -> None:
    with StdioServer(tmp_path) as server:
        typo = server.err("plan", task_id="example:ferry", budgte=5)
        stray = server.err("server_info", verbose=True)
        negative = server.err("plan", task_id="example:ferry", budget=-1)
        wrong = server.err("validate_plan", task_id="example:ferry", plan=42, state=[1, 2])
        missing = server.err("progress", task_id="example:ferry")
    assert "unknown argument 'budgte' (did you mean 'budget'?)" in typo
    assert "unknown argument 'verbose'" in stray and "takes no arguments" in stray
    assert "budget: Input should be greater than 0" in negative
    assert "plan" in wrong and "state.0" in wrong
    assert missing.endswith("missing required argument 'action'")
    for text in (typo, stray, negative, wrong, missing):
        assert "\n" not in text and "pydantic" not in text and "http" not in text, text


def test_a_nul_character_is_refused_on_every_input_path(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    with StdioServer(tmp_path, "--root", str(tmp_path / "root")) as server:
        tid = "example:ferry"
        episode = server.ok("start_episode", task_id=tid, budget=10)["episode_id"]
        errors = {
            "state": server.err("list_applicable", task_id=tid, state=["(at c0\x00 l0)"]),
            "atom": server.err("is_reachable", task_id=tid, atom="(at c0 l\x001)"),
            "action": server.err("progress", task_id=tid, action="(board c0\x00 l0)"),
            "plan list": server.err("validate_plan", task_id=tid, plan=["(sail l0\x00 l1)"]),
            "plan text": server.err("simplify_plan", task_id=tid, plan="(sail l0 l\x001)"),
            "score action": server.err(
                "score_answer", task="prog", response="x", task_id=tid, action="(board\x00 c0 l0)"
            ),
            "example": server.err("load_task", example="fe\x00rry"),
            "pddl text": server.err(
                "load_task", domain=FERRY_DOMAIN.replace("(empty-ferry)", "(empty\x00-ferry)", 1), problem=FERRY_PROBLEM
            ),
            "path": server.err("load_task", domain="d\x00.pddl", problem="p.pddl"),
            "task id": server.err("list_applicable", task_id="93f9fc07\x0050f17a5b"),
        }
        step = server.ok("step_episode", episode_id=episode, action="(sail l0\x00 l1)", budget=10)
        graded = server.ok("score_answer", task="nexta", response="(sail l0\x00 l1)", task_id=tid, budget=10)
    for where, text in errors.items():
        assert "internal error" not in text and "\n" not in text, (where, text)
    for where in ("state", "atom", "action", "plan list", "plan text", "score action"):
        assert "NUL" in errors[where], (where, errors[where])
    assert "NUL" in errors["pddl text"] and "NUL" in errors["path"]
    assert not step["applied"] and step["verdict"] == "hallucinated"
    assert graded["score"] == 0


def _needs_a_planner() -> dict:
    """A nexta record that only an outside planner can settle, on any machine: h* of 15 or more (beyond
    the in-process A*'s first slice, which is capped by work, not time) and no object symmetries (so
    the in-process A* does not join the race)."""
    for rec in records("test", "nexta"):
        if int(rec["answer"]["opt"]) >= 15:
            task = load_task(rec["PDDL_domain"], rec["PDDL_problem"])
            if not task.questions.optimizer.sym.active:
                return rec
    raise AssertionError("no nexta test record with h* >= 15 and no symmetries")


def test_a_crashed_planner_says_so(tmp_path: Path) -> None:
    """A planner that dies (here: it cannot even map its libraries under an 8 MB --max-planner-memory) is
    named with its exit code and its last line, once per distinct failure, not a bare unknown; lack of
    memory is said as such, with the flag that sets the planners' limit."""
    hard = _needs_a_planner()
    with StdioServer(tmp_path, "--max-planner-memory", "8") as server:
        tid = server.ok("load_task", domain=hard["PDDL_domain"], problem=hard["PDDL_problem"])["task_id"]
        nexta = server.ok("optimal_next_action", task_id=tid, budget=8, timeout=60)
        info = server.info()
    print(f"\n{nexta['detail']}")
    assert nexta["known"] is False and nexta["how"] == "unknown", nexta
    assert "planners that failed: downward ran out of memory at its limit of 8 MB (exited with code" in nexta["detail"]
    assert "set it with --max-planner-memory MB" in nexta["detail"]
    failed = nexta["detail"].split("planners that failed: ")[1].split("; ")
    assert len(failed) == len(set(failed)), failed
    assert info["limits"]["max_planner_memory"] == 8 and info["planners_running"] == 0


def test_only_the_servers_own_origin_may_call_it(tmp_path: Path) -> None:
    proc, url = start_http(tmp_path)
    port = int(url.split(":")[2].split("/")[0])
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    try:
        status = {
            origin: httpx2.post(
                url, json=body, headers={**headers, **({"Origin": origin} if origin else {})}, timeout=slack(10)
            ).status_code
            for origin in (
                None,
                f"http://127.0.0.1:{port}",
                f"http://localhost:{port}",
                f"http://127.0.0.1:{port + 1}",
                f"http://localhost:{port - 1}",
                "http://evil.test",
            )
        }
    finally:
        proc.terminate()
        proc.wait(timeout=slack(30))
    assert status[None] == 200 and status[f"http://127.0.0.1:{port}"] == 200
    assert status[f"http://localhost:{port}"] == 200
    assert status[f"http://127.0.0.1:{port + 1}"] == 403 and status[f"http://localhost:{port - 1}"] == 403
    assert status["http://evil.test"] == 403


# ---- 9. the proof store, opt-in -------------------------------------------------------------------


def test_the_proof_store_is_off_by_default_and_shared_with_cache(tmp_path: Path) -> None:
    path = tmp_path / "proofs.sqlite"
    with StdioServer(tmp_path) as server:
        assert server.info()["proof_store"] is None
    with StdioServer(tmp_path, "--cache", str(path)) as server:
        assert server.info()["proof_store"] == str(path)
        first = server.ok("score_answer", task="nexta", response="(board c0 l0)", task_id="example:ferry", budget=30)
    stored = ProofStore(path).stats()
    with StdioServer(tmp_path, "--cache", str(path)) as server:
        again = server.ok("score_answer", task="nexta", response="(board c0 l0)", task_id="example:ferry", budget=30)
    print(f"\nproof store after one run: {json.dumps(stored.get('facts'))}")
    assert stored["tasks"] >= 1 and sum(stored["facts"].values()) >= 1
    assert first["score"] == again["score"] is not None


# ---- issue 18: no line stops the stdio reader ---------------------------------------------------------

DEEP = "[" * 50_000 + "]" * 50_000


def test_a_50000_deep_json_request_gets_an_error_and_ping_is_answered_right_after(tmp_path: Path) -> None:
    with StdioServer(tmp_path) as server:
        server.write(
            (
                '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"server_info",'
                f'"arguments":{{"x":{DEEP}}}}}}}'
            ).encode()
        )
        deep = server.wait(77, 30)
        assert server.request("ping", timeout=30)["result"] == {}
        server.write(f'{{"jsonrpc":"2.0","id":"deep","method":"ping","params":{{"x":{DEEP}}}}}'.encode())
        named = server.wait("deep", 30)
        # a notification gets no reply (JSON-RPC 2.0), only a log line, and the next request is answered
        lines = server.lines
        server.write(f'{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"x":{DEEP}}}}}'.encode())
        assert server.request("ping", timeout=30)["result"] == {} and server.lines == lines + 1
    for reply in (deep, named):
        assert reply["error"]["code"] == -32600 and "nested too deeply" in reply["error"]["message"], reply
    assert "dropped an unreadable notification" in server.log_text()


def test_a_request_with_an_odd_id_gets_an_error_reply_and_the_server_goes_on(tmp_path: Path) -> None:
    odd = ['{"a":1}', "1e400", "1.5", "null", "[1]", "true", f'{{"x":{DEEP}}}']
    with StdioServer(tmp_path) as server:
        for request_id in odd:
            lines = server.lines
            server.write(f'{{"jsonrpc":"2.0","id":{request_id},"method":"ping"}}'.encode())
            reply = server.wait(None, 30)
            why = "nested too deeply" if DEEP in request_id else "id must be a string or an integer"
            assert reply["error"]["code"] == -32600 and why in reply["error"]["message"], (request_id[:20], reply)
            assert server.request("ping", timeout=30)["result"] == {} and server.lines == lines + 2
        huge = 10**30  # an integer, if a big one: answered under its own id
        server.write(f'{{"jsonrpc":"2.0","id":{huge},"method":"ping"}}'.encode())
        assert server.wait(huge, 30)["result"] == {}
        assert server.info()["name"] == "acptools"


def test_over_http_a_request_with_an_odd_id_gets_the_same_error_and_the_server_goes_on(tmp_path: Path) -> None:
    """The same requests POSTed to the streamable-HTTP server: each gets HTTP 400 with the JSON-RPC error
    stdio gives (the SDK alone answers 202 and never replies); valid ids, a huge integer among them, and
    the session go on being served."""
    odd = ['{"a":1}', "1e400", "1.5", "null", "[1]", "true", f'{{"x":{DEEP}}}']
    proc, url = start_http(tmp_path)
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": PROTOCOL,
    }
    try:
        with httpx2.Client(timeout=httpx2.Timeout(30, read=120)) as client:
            init = client.post(
                url,
                headers=headers,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": PROTOCOL,
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                },
            )
            headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
            client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            replies = [
                client.post(
                    url,
                    headers=headers,
                    content=f'{{"jsonrpc":"2.0","id":{request_id},'
                    '"method":"tools/call","params":{"name":"server_info","arguments":{}}}',
                )
                for request_id in odd
            ]
            pinged = [
                client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": request_id, "method": "ping"})
                for request_id in ("p", 10**30)
            ]
    finally:
        stop_process(proc)
    for request_id, reply in zip(odd, replies):
        why = "nested too deeply" if DEEP in request_id else "id must be a string or an integer"
        assert reply.status_code == 400, (request_id[:20], reply.status_code, reply.text[:200])
        error = reply.json()
        assert error["id"] is None and error["error"]["code"] == -32600 and why in error["error"]["message"], error
    for request_id, reply in zip(("p", 10**30), pinged):
        assert reply.status_code == 200 and f'"id":{json.dumps(request_id)}' in reply.text.replace(" ", ""), reply.text
