"""tools/list written short: clients put every tool's schemas into a model's context, so the server
sends only what a caller needs (validation still uses the full pydantic models).

Everywhere: no titles (they repeat the names) and ``"type": [t, "null"]`` instead of an ``anyOf`` for
an optional simple value (``"type": [t1, t2, ...]`` for a union of bare types, e.g. a cost: integer or
string). Arguments: no ``"default": null`` (``required`` already says it is optional)
and no length caps (they guard the server against huge inputs; no caller plans around them). Results:
only their shape (a result always carries every field, already validated).
"""

from __future__ import annotations

import copy
from typing import Any

_ARGUMENT_NOISE = ("maxLength",)
_RESULT_NOISE = ("required", "default", "minimum", "exclusiveMinimum")


def _bare_type(option: Any) -> bool:
    """An anyOf option that only names a simple type, such as {"type": "integer"}."""
    return isinstance(option, dict) and list(option) == ["type"] and isinstance(option["type"], str)


def _walk(node: Any, drop: tuple[str, ...], drop_null_default: bool) -> None:
    if not isinstance(node, dict):
        return
    options = node.get("anyOf")
    if isinstance(options, list) and all(_bare_type(o) for o in options):
        del node["anyOf"]
        node["type"] = [o["type"] for o in options]
    elif isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        value = next(o for o in options if o != {"type": "null"})
        if isinstance(value.get("type"), str) and "$ref" not in value:
            del node["anyOf"]
            node.update(value, type=[value["type"], "null"])
    node.pop("title", None)
    for key in drop:
        node.pop(key, None)
    if drop_null_default and "default" in node and node["default"] is None:
        del node["default"]
    if isinstance(node.get("additionalProperties"), bool):  # true is the default; false guards only the server
        del node["additionalProperties"]
    children = [
        *node.get("properties", {}).values(),
        *node.get("$defs", {}).values(),
        *node.get("anyOf", ()),
        node.get("items"),
        node.get("additionalProperties"),
    ]
    for child in children:
        _walk(child, drop, drop_null_default)


def compact_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's inputSchema, short (a copy)."""
    schema = copy.deepcopy(schema)
    _walk(schema, _ARGUMENT_NOISE, drop_null_default=True)
    return schema


def compact_result(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A tool's outputSchema, short (a copy): the result model and its definitions lose their docstrings
    (the tool's description says what it returns)."""
    if schema is None:
        return None
    schema = copy.deepcopy(schema)
    schema.pop("description", None)
    for definition in schema.get("$defs", {}).values():
        definition.pop("description", None)
    _walk(schema, _RESULT_NOISE, drop_null_default=False)
    return schema
