"""The worked examples of the skills (skills/*/SKILL.md) read so that tests can run them: MCP tool calls
in plain fenced blocks, each with the result it shows, and shell commands in ```bash blocks.

A tool call is a Python call with keyword arguments (JSON's true, false and null allowed), on one or
more lines; a bare name as an argument value is the field of that name in an earlier result of the same
block (`state=final_state`). What the call returns follows on lines that start with `->`:

    -> key: value, key: value        fields of the result, values in JSON; a shown object lists some of
                                     its keys, a shown list that ends in `...` some of its items, in order
    -> error: text                   the call fails with a message that contains `text`
"""

from __future__ import annotations

import ast
import io
import re
import shlex
import tokenize
from dataclasses import dataclass

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
CALL_START = re.compile(r"^[a-z_][a-z0-9_]*\(")
JSON_WORDS = {"true": True, "false": False, "null": None}


class Field(str):
    """An argument written as a bare name: the field of that name in an earlier result."""


@dataclass
class ToolExample:
    line: int  # where the call starts in the skill file (1-based)
    source: str  # the call as written
    tool: str
    arguments: dict[str, object]
    shows: dict[str, object] | None = None  # the result's fields it shows
    error: str | None = None  # or the text of the error it shows


def blocks(text: str, language: str) -> list[tuple[int, str]]:
    """(first line, body) of every fenced block in `language` ("" for plain fences)."""
    return [(text.count("\n", 0, m.start(2)) + 1, m.group(2)) for m in FENCE.finditer(text) if m.group(1) == language]


def tool_examples(text: str) -> list[list[ToolExample]]:
    """The tool calls of each plain fenced block, in order."""
    return [_block_examples(first, body) for first, body in blocks(text, "")]


def _block_examples(first: int, body: str) -> list[ToolExample]:
    examples: list[ToolExample] = []
    call: list[str] = []
    shown: list[str] = []
    for number, line in enumerate(body.splitlines(), start=first):
        if not call and CALL_START.match(line):
            if examples and shown:
                _show(examples[-1], " ".join(shown))
            call, shown = [line], []
            start = number
        elif call:
            call.append(line)
        elif line.strip().startswith("->") or (shown and line.startswith(" ")):
            shown.append(line.strip().removeprefix("->").strip())
        else:
            raise ValueError(f"line {number}: neither a tool call, nor a result after `->`: {line!r}")
        if call and _parses("\n".join(call)):
            examples.append(_call(start, "\n".join(call)))
            call = []
    if call:
        raise ValueError(f"line {start}: the call never closes: {' '.join(call)}")
    if examples and shown:
        _show(examples[-1], " ".join(shown))
    return examples


def _parses(source: str) -> bool:
    try:
        ast.parse(source, mode="eval")
        return True
    except SyntaxError:
        return False


def _call(line: int, source: str) -> ToolExample:
    node = ast.parse(source, mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
        raise ValueError(f"line {line}: write a tool call as name(key=value, ...): {source}")
    return ToolExample(line, source, node.func.id, {k.arg: _value(k.value) for k in node.keywords})


def _value(node: ast.expr) -> object:
    if isinstance(node, ast.Name):
        return JSON_WORDS[node.id] if node.id in JSON_WORDS else Field(node.id)
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    return ast.literal_eval(node)


def _show(example: ToolExample, text: str) -> None:
    if text.startswith("error:"):
        example.error = text.removeprefix("error:").strip()
    else:
        example.shows = shown_fields(text)


def shown_fields(text: str) -> dict[str, object]:
    """`key: value, key: value` (values in JSON, `...` allowed at the end of a list) as a dict."""
    words, depth, previous = [], 0, None
    tokens = [
        t
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
    ]
    for k, token in enumerate(tokens):
        word = token.string
        depth += word in {"(", "[", "{"}
        depth -= word in {")", "]", "}"}
        ahead = tokens[k + 1].string if k + 1 < len(tokens) else ""
        if token.type == tokenize.NAME and depth == 0 and ahead == ":" and previous in (None, ","):
            word = repr(word)
        elif token.type == tokenize.NAME and word in JSON_WORDS:
            word = repr(JSON_WORDS[word])
        words.append(word)
        previous = token.string
    return ast.literal_eval("{" + " ".join(words) + "}")


def mismatches(shown: object, actual: object, where: str = "") -> list[str]:
    """How `actual` differs from what an example shows (nothing when every shown part is there)."""
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{where}: shown an object, got {actual!r}"]
        return [
            m
            for key, value in shown.items()
            for m in (
                [f"{where}.{key}: not in the result"]
                if key not in actual
                else mismatches(value, actual[key], f"{where}.{key}")
            )
        ]
    if isinstance(shown, list):
        if not isinstance(actual, list):
            return [f"{where}: shown a list, got {actual!r}"]
        if shown and shown[-1] is Ellipsis:
            rest = iter(actual)
            missing = [item for item in shown[:-1] if not any(not mismatches(item, a) for a in rest)]
            return (
                [f"{where}: {missing[0]!r} is not among the items, in the order shown: {actual!r}"] if missing else []
            )
        if len(shown) != len(actual):
            return [f"{where}: shown {len(shown)} items, got {len(actual)}: {actual!r}"]
        return [m for k, (s, a) in enumerate(zip(shown, actual)) for m in mismatches(s, a, f"{where}[{k}]")]
    if shown != actual or isinstance(shown, bool) != isinstance(actual, bool):
        return [f"{where}: shown {shown!r}, got {actual!r}"]
    return []


def commands(text: str) -> list[str]:
    """The shell commands of the ```bash blocks, one per line (`\\` continues a line)."""
    found = []
    for _, body in blocks(text, "bash"):
        for line in body.replace("\\\n", " ").splitlines():
            if line.strip() and shlex.split(line, comments=True):
                found.append(line.strip())
    return found


def allowed_by(command: str, pattern: str) -> bool:
    """Whether a Bash(...) rule of allowed-tools lets `command` run: `*` stands for any text."""
    inner = re.fullmatch(r"Bash\((.*)\)", pattern)
    if inner is None:
        return False
    return re.fullmatch(".*".join(map(re.escape, inner.group(1).split("*"))), command, re.DOTALL) is not None
