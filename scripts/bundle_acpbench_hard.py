"""Re-create the bundled ACPBench Hard copy (acptools/data/acpbench_hard/) from a source folder.

    python scripts/bundle_acpbench_hard.py SOURCE

SOURCE holds either `{dev,test}/<task>.json` (JSON arrays) or IBM/ACPBench's own layout
`dataset/<task>/{dev,test}.gen.json[.gz]`. Each split/task becomes `<split>/<task>.jsonl.gz`: one
record a line, fields and order as in the source, ids as exact integers (Python's json never passes
them through floats), gzip with mtime 0 and no file name, so the same input gives the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools.dataset import BUNDLED, SPLITS, TASKS, encode_jsonl_gz, load_records  # noqa: E402


def source_file(src: Path, split: str, task: str) -> Path:
    candidates = [
        src / split / f"{task}.json",
        src / "dataset" / task / f"{split}.gen.json",
        src / "dataset" / task / f"{split}.gen.json.gz",
    ]
    for c in candidates:
        if c.is_file():
            return c
    raise SystemExit(f"no {split}/{task} records under {src} (looked for {', '.join(map(str, candidates))})")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    src = Path(argv[0])
    for split in SPLITS:
        (BUNDLED / split).mkdir(parents=True, exist_ok=True)
        for task in TASKS:
            records = load_records(source_file(src, split, task))
            out = BUNDLED / split / f"{task}.jsonl.gz"
            out.write_bytes(encode_jsonl_gz(records))
            print(f"{out.relative_to(ROOT)}: {len(records)} records, {out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
