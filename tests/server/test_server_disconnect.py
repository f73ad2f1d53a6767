"""A client that goes away cancels its work: a raw HTTP client that drops its connection, or ends its session
(HTTP DELETE), in the middle of an optimal_next_action(budget=600) on a state whose h* takes minutes frees
the search slot, and the planners are gone within 2 s (plus a margin for the machine's load) (issue 18)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx2

from tests.support.data import records
from tests.support.load import slack
from tests.support.server_procs import PROTOCOL, planners_of, start_http, stop_process, wait_until

HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": PROTOCOL,
}


def _post(client: httpx2.Client, url: str, body: dict, session: str | None = None) -> httpx2.Response:
    return client.post(url, json=body, headers={**HEADERS, **({"Mcp-Session-Id": session} if session else {})})


def _result(response: httpx2.Response) -> dict:
    return json.loads(response.text.split("data: ", 1)[1].splitlines()[0])["result"]


def _session(client: httpx2.Client, url: str) -> str:
    init = _post(
        client,
        url,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        },
    )
    session = init.headers["mcp-session-id"]
    _post(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session


def _raw_call(url: str, session: str, body: dict) -> socket.socket:
    """Send a POST on a plain socket and leave it open (the caller drops it)."""
    parts = urlsplit(url)
    data = json.dumps(body).encode()
    head = [
        f"POST {parts.path} HTTP/1.1",
        f"Host: {parts.netloc}",
        f"Content-Length: {len(data)}",
        f"Mcp-Session-Id: {session}",
    ] + [f"{k}: {v}" for k, v in HEADERS.items()]
    sock = socket.create_connection((parts.hostname, parts.port), timeout=slack(30))
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    return sock


def test_a_dropped_http_client_cancels_its_search(tmp_path: Path) -> None:
    hard = next(r for r in records("test", "nexta") if str(r["answer"]["opt"]) == "65")
    proc, url = start_http(tmp_path)
    try:
        with httpx2.Client(timeout=httpx2.Timeout(30, read=120)) as client:
            session = _session(client, url)
            info = {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {"name": "server_info", "arguments": {}},
            }
            tid = _result(
                _post(
                    client,
                    url,
                    {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "tools/call",
                        "params": {
                            "name": "load_task",
                            "arguments": {"domain": hard["PDDL_domain"], "problem": hard["PDDL_problem"]},
                        },
                    },
                    session,
                )
            )["structuredContent"]["task_id"]
            searches = lambda: _result(_post(client, url, info, session))["structuredContent"]["searches_running"]  # noqa: E731
            sock = _raw_call(
                url,
                session,
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "optimal_next_action", "arguments": {"task_id": tid, "budget": 600}},
                },
            )
            assert wait_until(lambda: planners_of(proc.pid), 60), "no planner process started"
            assert searches() == 1
            sock.close()
            t0 = time.perf_counter()
            gone = wait_until(lambda: not planners_of(proc.pid) and searches() == 0, 30, step=0.05)
            elapsed = time.perf_counter() - t0
            still = _result(
                _post(
                    client,
                    url,
                    {
                        "jsonrpc": "2.0",
                        "id": 4,
                        "method": "tools/call",
                        "params": {"name": "plan", "arguments": {"task_id": "example:ferry", "budget": 30}},
                    },
                    session,
                )
            )
    finally:
        stop_process(proc)
    allowed = slack(2)
    print(f"\nthe dropped client's search was gone {elapsed:.2f} s after the disconnect (allowed {allowed:.1f} s)")
    assert gone and elapsed < allowed, elapsed
    assert still["structuredContent"]["answer"] is True


def _delete_session(client: httpx2.Client, url: str, session: str) -> httpx2.Response:
    return client.delete(url, headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": PROTOCOL})


def test_closing_an_http_session_cancels_its_calls_and_frees_the_slot(tmp_path: Path) -> None:
    """A client that ends its session (HTTP DELETE, as the MCP spec says) while its search runs: the search
    and its planners are gone within 2 s (plus the load's margin), and another session's call that waited
    for the only search slot is answered."""
    hard = next(r for r in records("test", "nexta") if str(r["answer"]["opt"]) == "65")
    proc, url = start_http(tmp_path, "--max-concurrent-searches", "1")
    try:
        with httpx2.Client(timeout=httpx2.Timeout(30, read=120)) as client:
            session, other = _session(client, url), _session(client, url)
            info = {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {"name": "server_info", "arguments": {}},
            }
            searches = lambda: _result(_post(client, url, info, other))["structuredContent"]  # noqa: E731
            tid = _result(
                _post(
                    client,
                    url,
                    {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "tools/call",
                        "params": {
                            "name": "load_task",
                            "arguments": {"domain": hard["PDDL_domain"], "problem": hard["PDDL_problem"]},
                        },
                    },
                    session,
                )
            )["structuredContent"]["task_id"]
            search = _raw_call(
                url,
                session,
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "optimal_next_action", "arguments": {"task_id": tid, "budget": 600}},
                },
            )
            assert wait_until(lambda: planners_of(proc.pid), 60), "no planner process started"
            waiting = _raw_call(
                url,
                other,
                {
                    "jsonrpc": "2.0",
                    "id": 4,
                    "method": "tools/call",
                    "params": {"name": "plan", "arguments": {"task_id": "example:ferry", "budget": 30}},
                },
            )
            assert wait_until(lambda: searches()["searches_waiting"] == 1, 30), searches()
            closed = _delete_session(client, url, session)
            t0 = time.perf_counter()
            gone = wait_until(lambda: not planners_of(proc.pid) and searches()["searches_running"] == 0, 30, step=0.05)
            elapsed = time.perf_counter() - t0
            waiting.settimeout(slack(60))
            answer = _read_answer(waiting)
            after = _post(client, url, info, session)
            search.close()
            waiting.close()
    finally:
        stop_process(proc)
    allowed = slack(2)
    print(f"\nthe closed session's search was gone {elapsed:.2f} s after the DELETE (allowed {allowed:.1f} s)")
    assert closed.status_code == 200, closed.text
    assert gone and elapsed < allowed, elapsed
    assert answer["structuredContent"]["answer"] is True
    assert after.status_code == 404  # the closed session is forgotten


def _read_answer(sock: socket.socket) -> dict:
    """The JSON-RPC result of the one call sent on ``sock`` (an SSE stream; read until its data line)."""
    data = b""
    while b"\ndata: " not in data or not data.split(b"\ndata: ", 1)[1].count(b"\n"):
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before the answer: {data!r}"
        data += chunk
    return json.loads(data.split(b"\ndata: ", 1)[1].split(b"\n", 1)[0])["result"]
