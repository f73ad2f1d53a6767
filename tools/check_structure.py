#!/usr/bin/env python3
"""Structure checks anyone can rerun (the tests run them too): python tools/check_structure.py [REPO]

1. no import circle among the repository's own modules (acptools, server, examples, scripts, tools);
2. no function longer than MAX_FUNCTION_LINES outside tests and benchmarks;
3. server/ imports only the public API of acptools: names in ``acptools.__all__`` and the modules in
   ``acptools.PUBLIC_MODULES`` (read from acptools/__init__.py without importing it);
4. no block of MIN_BLOCK_LINES or more consecutive identical lines (stripped; blank and comment lines
   skipped) in two places within acptools/ and server/, except the pairs in ALLOWED_REPEATS.

Prints one line per finding and a summary; exits 1 when anything is found.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGES = ("acptools", "server", "examples", "scripts", "tools")
MAX_FUNCTION_LINES = 120
MIN_BLOCK_LINES = 6
REPEAT_DIRS = ("acptools", "server")
# accepted repeats: (file, file, first line of the block), each with the reason it stays
ALLOWED_REPEATS: dict[tuple[str, str, str], str] = {}


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file below the packages that exist."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def imports(name: str, path: Path, tree: ast.AST) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, imported names) of every import, relative ones made absolute."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.append((node.lineno, base, [alias.name for alias in node.names]))
    return out


def import_graph(mods: dict[str, Path], trees: dict[str, ast.AST]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in mods.items():
        for _line, module, names in imports(name, path, trees[name]):
            for target in [module] + [f"{module}.{n}" for n in names]:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                # a module importing its own package's __init__ is how Python loads packages, not a circle
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]], nodes) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def long_functions(root: Path, mods: dict[str, Path], trees: dict[str, ast.AST]) -> list[str]:
    out = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    out.append(f"long function: {mods[name].relative_to(root)}:{node.lineno} {node.name} "
                               f"({length} lines > {MAX_FUNCTION_LINES})")
    return out


def public_api(root: Path) -> tuple[set[str], set[str]]:
    """(names in acptools.__all__, modules in acptools.PUBLIC_MODULES)."""
    tree = ast.parse((root / "acptools" / "__init__.py").read_text())
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("__all__", "PUBLIC_MODULES"):
                values[node.targets[0].id] = set(ast.literal_eval(node.value))
    return values.get("__all__", set()), values.get("PUBLIC_MODULES", set())


def private_imports(root: Path, mods: dict[str, Path], trees: dict[str, ast.AST]) -> list[str]:
    exported, public = public_api(root)
    out = []
    for name, path in mods.items():
        if not (name == "server" or name.startswith("server.")):
            continue
        for line, module, names in imports(name, path, trees[name]):
            if module != "acptools" and not module.startswith("acptools."):
                continue
            where = f"{path.relative_to(root)}:{line}"
            if module == "acptools":
                bad = [n for n in names if n not in exported and f"acptools.{n}" not in public]
                out += [f"private import: {where} from acptools import {n}" for n in bad]
            elif module not in public:
                out.append(f"private import: {where} {module} is not in acptools.PUBLIC_MODULES")
    return out


def _significant_lines(path: Path) -> list[tuple[int, str]]:
    lines = []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        text = text.strip()
        if text and not text.startswith("#"):
            lines.append((number, text))
    return lines


def repeated_blocks(root: Path) -> list[str]:
    """Blocks of MIN_BLOCK_LINES+ identical significant lines found in two places (merged into runs)."""
    files = [p for d in REPEAT_DIRS for p in sorted((root / d).rglob("*.py"))]
    lines = {p: _significant_lines(p) for p in files}
    windows: dict[tuple[str, ...], list[tuple[Path, int]]] = defaultdict(list)
    for path, numbered in lines.items():
        texts = [t for _, t in numbered]
        for i in range(len(texts) - MIN_BLOCK_LINES + 1):
            windows[tuple(texts[i:i + MIN_BLOCK_LINES])].append((path, i))
    pairs: set[tuple[Path, int, Path, int]] = set()
    for places in windows.values():
        for a in range(len(places)):
            for b in range(a + 1, len(places)):
                (pa, ia), (pb, ib) = places[a], places[b]
                if pa != pb or abs(ia - ib) >= MIN_BLOCK_LINES:
                    pairs.add((pa, ia, pb, ib))
    out = []
    for pa, ia, pb, ib in sorted(pairs, key=lambda x: (str(x[0]), x[1], str(x[2]), x[3])):
        if (pa, ia - 1, pb, ib - 1) in pairs:
            continue  # inside a run already reported
        length = MIN_BLOCK_LINES
        while (pa, ia + length - MIN_BLOCK_LINES + 1, pb, ib + length - MIN_BLOCK_LINES + 1) in pairs:
            length += 1
        first = lines[pa][ia][1]
        key = (str(pa.relative_to(root)), str(pb.relative_to(root)), first)
        if key in ALLOWED_REPEATS:
            continue
        out.append(f"repeated block: {length} lines at {key[0]}:{lines[pa][ia][0]} and {key[1]}:{lines[pb][ib][0]} "
                   f"(first line {first!r})")
    return out


def check(root: Path) -> list[str]:
    mods = modules(root)
    trees = {name: ast.parse(path.read_text(), str(path)) for name, path in mods.items()}
    graph = import_graph(mods, trees)
    findings = [f"import circle: {' <-> '.join(c)}" for c in circles(graph, sorted(mods))]
    findings += long_functions(root, mods, trees)
    findings += private_imports(root, mods, trees)
    findings += repeated_blocks(root)
    return findings


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[1]).resolve()
    findings = check(root)
    for finding in findings:
        print(finding)
    print(f"{len(modules(root))} modules checked: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
