#!/usr/bin/env python3
"""Structure checks anyone can rerun (the tests run them too): python tools/check_structure.py [REPO]

1. no import circle among the repository's own modules (acptools, server, examples, scripts, tools);
2. no function longer than MAX_FUNCTION_LINES logical lines (statements; a call the formatter spreads over
   many lines counts once, so the measure does not change with the formatter) outside tests and benchmarks;
3. server/ imports only the public API of acptools: names in ``acptools.__all__`` and the modules in
   ``acptools.PUBLIC_MODULES`` and ``acptools.PLUMBING`` (read from acptools/__init__.py without
   importing it);
4. no block of MIN_BLOCK_LINES or more consecutive identical logical lines (whitespace-normalized; blank
   and comment lines skipped) in two places within acptools/ and server/, except the pairs in ALLOWED_REPEATS;
5. the top level of acptools/ holds only the public face, its plumbing, its internal modules and the
   engine's rooms: every top-level module and subpackage is in ``acptools.PUBLIC_MODULES``,
   ``acptools.PLUMBING``, ``acptools.INTERNAL_MODULES`` or ``acptools.ENGINE_PACKAGES``; and it holds
   at most MAX_TOP_LEVEL_MODULES modules (files; subpackages apart);
6. the engine's rooms (``acptools.ENGINE_PACKAGES``) are imported only from inside them and from the face
   modules that wrap them (``acptools.ENGINE_GATES``);
7. no upward import: every module belongs to one of the LAYERS (bottom up) and imports only from its own
   layer or those below;
8. no two modules of acptools/ share a file name (a reader must never wonder which `report.py` is
   meant), none shadows a module of the standard library, and no subpackage shadows one (or
   `inspect_ai`, the package acptools.inspect_eval adapts).

Prints one line per finding and a summary; exits 1 when anything is found.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from collections import defaultdict
from pathlib import Path

PACKAGES = ("acptools", "server", "environments", "examples", "scripts", "tools")
MAX_FUNCTION_LINES = 80
MAX_TOP_LEVEL_MODULES = 18
SHADOWED = frozenset(sys.stdlib_module_names) | {"inspect_ai"}  # names no module or package of acptools takes
MIN_BLOCK_LINES = 6
REPEAT_DIRS = ("acptools", "server")
# accepted repeats: (file, file, first line of the block), each with the reason it stays
ALLOWED_REPEATS: dict[tuple[str, str, str], str] = {
    ("acptools/cli/eval.py", "acptools/cli/score.py", '"""'): "two subcommands' import headers (docstring end, the "
    "same standard imports), not logic",
    ("acptools/questions/basic.py", "server/models.py", "action : str"): "the MCP result model lists the fields "
    "of the library's Progression: the server's typed schema mirrors it, field by field",
}
# the layers, bottom up: a module belongs to the layer of its longest matching prefix
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "acptools.errors",
        "acptools.verdict",
        "acptools.budget",
        "acptools.kinds",
        "acptools.util",
        "acptools.proofs.store",
        "acptools.proofs.signing_key",
        "acptools.proofs.grade_memo",
    ),  # leaves: no engine
    ("acptools.pddl",),  # text -> lifted model
    ("acptools.ground",),  # lifted model -> grounded task
    ("acptools.planners",),  # outside planners on a grounded task
    ("acptools.engine",),  # proofs and search
    ("acptools.questions",),  # the eight questions
    ("acptools.task",),  # the public task
    ("acptools.proofs",),  # proven facts and tasks kept across runs
    (
        "acptools.truth",
        "acptools.claims",
        "acptools.describe",
        "acptools.episode",
        "acptools.answers",
        "acptools.dataset",
        "acptools.examples",
        "acptools.prompts",
        "acptools.backends",
    ),  # the face's services
    (
        "acptools.scoring",
        "acptools.audit",
        "acptools.generate",
        "acptools.rollout",
        "acptools.rewards",
        "acptools.inspect_eval",
        "acptools.up",
        "acptools.environments",
        "acptools.evaluation",
        "acptools.htmlreport",
        "acptools.export",
    ),  # applications
    ("acptools.cli",),  # the command line
    ("acptools", "server", "environments", "examples", "scripts", "tools"),  # the package's face and everything outside
)


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


def _logical_starts(path: Path) -> list[tuple[int, str]]:
    """Each logical line of a file (a statement, however many physical lines the formatter gives it): its
    first line number and its tokens joined by single spaces, comments left out."""
    out: list[tuple[int, str]] = []
    words: list[str] = []
    first = 0
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.NEWLINE or tok.type == tokenize.ENDMARKER:
            if words:
                out.append((first, " ".join(words)))
            words = []
        elif tok.type not in skip:
            if not words:
                first = tok.start[0]
            words.append(tok.string)
    return out


def long_functions(root: Path, mods: dict[str, Path], trees: dict[str, ast.AST]) -> list[str]:
    out = []
    for name, tree in trees.items():
        starts = [line for line, _ in _logical_starts(mods[name])]
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = sum(1 for line in starts if node.lineno <= line <= node.end_lineno)
                if length > MAX_FUNCTION_LINES:
                    out.append(
                        f"long function: {mods[name].relative_to(root)}:{node.lineno} {node.name} "
                        f"({length} logical lines > {MAX_FUNCTION_LINES})"
                    )
    return out


def declared(root: Path, name: str) -> set[str]:
    """A tuple or list literal assigned to `name` in acptools/__init__.py, read without importing it."""
    tree = ast.parse((root / "acptools" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == name:
                return set(ast.literal_eval(node.value))
    return set()


def public_api(root: Path) -> tuple[set[str], set[str]]:
    """(names in acptools.__all__, modules in acptools.PUBLIC_MODULES)."""
    return declared(root, "__all__"), declared(root, "PUBLIC_MODULES")


def _within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def unlisted_top_level(root: Path) -> list[str]:
    """Top-level modules and subpackages of acptools that are in no list of acptools/__init__.py, and
    modules past MAX_TOP_LEVEL_MODULES."""
    listed = set().union(
        *(declared(root, name) for name in ("PUBLIC_MODULES", "PLUMBING", "INTERNAL_MODULES", "ENGINE_PACKAGES"))
    )
    files = [p for p in (root / "acptools").glob("*.py") if p.name != "__init__.py"]
    out = (
        []
        if len(files) <= MAX_TOP_LEVEL_MODULES
        else [
            f"too many top-level modules: acptools/ holds {len(files)} modules, more than {MAX_TOP_LEVEL_MODULES}; move "
            "the ones that are no part of the library's face into the package they serve"
        ]
    )
    for path in sorted((root / "acptools").iterdir()):
        name = path.stem if path.suffix == ".py" else path.name
        is_module = path.suffix == ".py" and name != "__init__"
        is_package = path.is_dir() and (path / "__init__.py").exists()
        if (is_module or is_package) and not any(
            m == f"acptools.{name}" or m.startswith(f"acptools.{name}.") for m in listed
        ):
            out.append(
                f"unlisted top-level module: acptools/{path.name} is in none of acptools.PUBLIC_MODULES, "
                "PLUMBING, INTERNAL_MODULES, ENGINE_PACKAGES (list it, or move it into the room it belongs to)"
            )
    return out


def confusable_names(root: Path) -> list[str]:
    """Modules of acptools that share a file name, and modules or packages named like the standard
    library's (or inspect_ai)."""
    by_name: dict[str, list[Path]] = defaultdict(list)
    out = []
    for path in sorted((root / "acptools").rglob("*.py")):
        if path.name not in ("__init__.py", "__main__.py"):
            by_name[path.name].append(path)
        name = path.parent.name if path.name == "__init__.py" else path.stem
        if name in SHADOWED:
            out.append(
                f"shadowing name: {path.relative_to(root)} is named like the module {name!r} it would be "
                "confused with; give it a name of its own"
            )
    for name, paths in sorted(by_name.items()):
        if len(paths) > 1:
            out.append(
                f"shared file name: {', '.join(str(p.relative_to(root)) for p in paths)} are all {name}; name "
                "each for what it holds"
            )
    return out


def engine_imports(root: Path, mods: dict[str, Path], trees: dict[str, ast.AST]) -> list[str]:
    """Imports of the engine's rooms from outside them and outside the face modules that wrap them."""
    rooms, gates = declared(root, "ENGINE_PACKAGES"), declared(root, "ENGINE_GATES")
    out = []
    for name, path in mods.items():
        if _within(name, rooms) or _within(name, gates):
            continue
        for line, module, names in imports(name, path, trees[name]):
            targets = [module] + [f"{module}.{n}" for n in names]
            hit = next((t for t in targets if _within(t, rooms)), None)
            if hit:
                out.append(
                    f"engine import: {path.relative_to(root)}:{line} imports {hit}; reach the engine through "
                    f"the public face ({', '.join(sorted(gates))})"
                )
    return out


def layer_of(module: str) -> int | None:
    best = None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            inside = module == p or (module.startswith(p + ".") and p != "acptools")  # the package face: itself only
            if inside and (best is None or len(p) > best[1]):
                best = (i, len(p))
    return None if best is None else best[0]


def upward_imports(root: Path, mods: dict[str, Path], graph: dict[str, set[str]]) -> list[str]:
    """Arrows from a module to a module of a higher layer (LAYERS, bottom up)."""
    out = []
    for name in sorted(mods):
        own = layer_of(name)
        if own is None:
            out.append(f"no layer: {mods[name].relative_to(root)} belongs to none of LAYERS (add its package)")
            continue
        for target in sorted(graph[name]):
            up = layer_of(target)
            if up is not None and up > own:
                out.append(
                    f"upward import: {mods[name].relative_to(root)} ({name}, layer {own}) imports {target} (layer {up})"
                )
    return out


def private_imports(root: Path, mods: dict[str, Path], trees: dict[str, ast.AST]) -> list[str]:
    exported, public = public_api(root)
    plumbing = declared(root, "PLUMBING")
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
            elif module not in public and not _within(module, plumbing):
                out.append(f"private import: {where} {module} is in neither acptools.PUBLIC_MODULES nor PLUMBING")
    return out


def _significant_lines(path: Path) -> list[tuple[int, str]]:
    return _logical_starts(path)


def repeated_blocks(root: Path) -> list[str]:
    """Blocks of MIN_BLOCK_LINES+ identical significant lines found in two places (merged into runs)."""
    files = [p for d in REPEAT_DIRS for p in sorted((root / d).rglob("*.py"))]
    lines = {p: _significant_lines(p) for p in files}
    windows: dict[tuple[str, ...], list[tuple[Path, int]]] = defaultdict(list)
    for path, numbered in lines.items():
        texts = [t for _, t in numbered]
        for i in range(len(texts) - MIN_BLOCK_LINES + 1):
            windows[tuple(texts[i : i + MIN_BLOCK_LINES])].append((path, i))
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
        out.append(
            f"repeated block: {length} lines at {key[0]}:{lines[pa][ia][0]} and {key[1]}:{lines[pb][ib][0]} "
            f"(first line {first!r})"
        )
    return out


def check(root: Path) -> list[str]:
    mods = modules(root)
    trees = {name: ast.parse(path.read_text(), str(path)) for name, path in mods.items()}
    graph = import_graph(mods, trees)
    findings = [f"import circle: {' <-> '.join(c)}" for c in circles(graph, sorted(mods))]
    findings += long_functions(root, mods, trees)
    findings += private_imports(root, mods, trees)
    findings += repeated_blocks(root)
    findings += unlisted_top_level(root)
    findings += engine_imports(root, mods, trees)
    findings += upward_imports(root, mods, graph)
    findings += confusable_names(root)
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
