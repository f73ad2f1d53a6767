"""Every shell command a doc shows with its output runs, and prints what the doc shows (the convention is
in tests/support/doc_console.py and docs/testing.md): a doc example whose printed answer drifted from the
command fails here. Blocks marked slow run with -m slow, in order with the rest of their file."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.support.doc_console import Block, console_blocks, matches, problems, render, unmarked_transcripts

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted(
    (
        p
        for p in {
            REPO / "README.md",
            REPO / "CONTRIBUTING.md",
            REPO / "CHANGELOG.md",
            REPO / "examples" / "README.md",
            *(REPO / "docs").glob("*.md"),
        }
        if p.exists()
    ),
    key=str,
)
LEFT_OUT = {".git", ".venv", "build", "dist", "node_modules"}  # top-level entries the scratch folder does not show
BLOCK_SECONDS = 300  # a hang guard per block, not a speed bound


def doc_id(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name


def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working folder where the repository's files are reachable under their own names (commands write
    beside them, not into the checkout), and an environment with a private proof store and key."""
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    state.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in LEFT_OUT and not entry.name.startswith(".") and not entry.name.endswith(".egg-info"):
            (work / entry.name).symlink_to(entry)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACPTOOLS_", "OPENAI_", "ANTHROPIC_", "PYTEST_"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        ACPTOOLS_CACHE=str(state / "proofs.sqlite"),
        ACPTOOLS_STORE_KEY_FILE=str(state / "store.key"),
        COLUMNS="100",
        LINES="50",
        TERM="dumb",
        NO_COLOR="1",
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
    )
    return work, env


def run_blocks(blocks: list[Block], tmp_path: Path) -> list[str]:
    work, env = scratch(tmp_path)
    found: list[str] = []
    for block in blocks:
        found += problems(block, work, env, BLOCK_SECONDS)
    return found


def with_blocks(slow: bool) -> list[Path]:
    return [d for d in DOCS if any(b.slow == slow for b in console_blocks(d))]


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("doc", with_blocks(slow=False), ids=doc_id)
def test_every_console_block_prints_what_it_shows(doc: Path, tmp_path: Path) -> None:
    assert run_blocks([b for b in console_blocks(doc) if not b.slow], tmp_path) == []


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("doc", with_blocks(slow=True), ids=doc_id)
def test_every_slow_console_block_prints_what_it_shows(doc: Path, tmp_path: Path) -> None:
    """The slow blocks, after the blocks before them in their file (whose files they may read)."""
    blocks = console_blocks(doc)
    last = max(k for k, b in enumerate(blocks) if b.slow)
    assert run_blocks(blocks[: last + 1], tmp_path) == []


def test_no_doc_shows_output_outside_a_console_block() -> None:
    assert [p for d in DOCS for p in unmarked_transcripts(d)] == []


def test_the_docs_show_their_commands_output() -> None:
    """The check has something to check: the README's quick start and the generating guide's examples."""
    shown = {doc_id(d): len(console_blocks(d)) for d in DOCS}
    assert shown["README.md"] >= 1 and shown["docs/generating.md"] >= 3, shown
    assert all(b.commands for d in DOCS for b in console_blocks(d))


CHECKED = """\
```console
$ echo right
right
$ echo drifted
what it printed once
$ X=4; echo "took $X.2 s in $PWD"
took [...] s in [...]
$ printf 'head\\nmiddle\\nmore\\ntail\\n'
head
...
tail
$ printf '[.....] 0/2\\r[#####] 2/2\\n'
[#####] 2/2
$ (exit 3)
[exit 3]
$ echo $X; (exit 2)
4
$ echo a \\
    b
a b
```
"""


def test_the_check_catches_a_transcript_that_drifted(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Intro.\n\n" + CHECKED, encoding="utf-8")
    [block] = console_blocks(doc)
    assert [c.line for c in block.commands] == [4, 6, 8, 10, 14, 16, 18, 20]
    assert [c.exit for c in block.commands][-3:] == [3, 0, 0]
    found = problems(block, tmp_path, dict(os.environ), 60)
    assert len(found) == 2, found
    assert found[0].startswith("doc.md:6 `echo drifted`: prints otherwise than shown:")
    assert "-what it printed once\n+drifted" in found[0]
    assert found[1] == "doc.md:18 `echo $X; (exit 2)`: exit status 2, the doc shows 0"


def test_wildcards_stand_for_what_they_say() -> None:
    assert matches(["a", "...", "z"], ["a", "z"]) and matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert not matches(["a", "...", "z"], ["a", "b"]) and not matches(["a"], ["a", "b"])
    assert matches(["took [...] s"], ["took 0.01 s"]) and not matches(["took [...] s"], ["took 1 s", "more"])
    assert not matches(["took [...] s"], ["took 1 ms."]) and matches(["x.y"], ["x.y"]) and not matches(["x.y"], ["xzy"])
    assert render(b"\r[....] 0/2\r[####] 2/2   \r\nnext\x1b[K\r\n") == ["[####] 2/2", "next", ""]


def test_transcripts_outside_console_blocks_are_found(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "```bash\nacptools demo   # the eight answers\n```\n\n```\n$ acptools demo\nexample ferry\n```\n\n"
        "```sh\nacptools-server --port 0\n#   -> exit 2: refusing\n```\n\n```python\n# -> fine here\n```\n",
        encoding="utf-8",
    )
    found = unmarked_transcripts(doc)
    assert [p.split(":")[1] for p in found] == ["6", "12"], found


def headings(path: Path) -> set[str]:
    """The anchors GitHub gives a markdown file's headings (lower case, punctuation dropped, spaces as -)."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {
        re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        for m in re.finditer(r"^#{1,6}\s+(.*)$", text, flags=re.M)
    }


def broken_links(doc: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
    found = []
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = (doc.parent / path).resolve() if path else doc
        if not target.exists():
            found.append(f"{doc_id(doc)}: {link} names no file")
        elif anchor and target.suffix == ".md" and anchor not in headings(target):
            found.append(f"{doc_id(doc)}: {link} names no heading of {target.name}")
    return found


def test_every_link_between_the_docs_leads_somewhere() -> None:
    """A moved section or a renamed file breaks no link: every relative link names a file that exists,
    and an anchor a heading of it."""
    assert [p for d in DOCS for p in broken_links(d)] == []


def test_the_link_check_catches_a_moved_section(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\n## Run every check\n", encoding="utf-8")
    doc = tmp_path / "b.md"
    doc.write_text(
        "[ok](a.md#run-every-check) [gone](a.md#tests) [none](c.md) [web](https://x.org/#y)\n"
        "```\n[in code](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert [p.split(": ", 1)[1] for p in broken_links(doc)] == [
        "a.md#tests names no heading of a.md",
        "c.md names no file",
    ]
