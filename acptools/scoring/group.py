"""Grading every response to one record: its question is built once (parsed, grounded, its truth
computed), each response graded against it; any per-item problem becomes an item with verdict 'error'."""

from __future__ import annotations

import os
import time
import traceback

from ..errors import AcpError
from ..verdict import Grade
from . import generated_forms
from .api import check_stored, grade
from .items import ItemScore, item_for
from .question import question_of_record, record_where


def score_group(record: dict, rows: list[dict], semantics: str, budget, until: bool = True) -> list[ItemScore]:
    """Score every response to one record (its question is built once)."""
    out = []
    generated = generated_forms.handles(record)  # a generated form: graded by scoring.forms
    try:
        q = question_of_record(record, lazy=semantics == "reference")
        if semantics == "reference" and not generated:
            check_stored(q, record_where(record))
        setup_error = None
    except AcpError as e:
        q, setup_error = None, str(e)
    except Exception as e:  # noqa: BLE001 - reported per item, never a crash
        q, setup_error = None, f"internal error while loading {record_where(record)}: {type(e).__name__}: {e}"
    for row in rows:
        item = item_for(record, row, semantics)
        t0 = time.perf_counter()
        if q is None:
            item.score, item.verdict, item.reason = None, Grade.ERROR, setup_error
        else:
            try:
                res, parsed = (
                    generated_forms.grade(q, record, row["response"], semantics, budget)
                    if generated
                    else grade(q, row["response"], semantics, budget, until)
                )
                item.score, item.verdict, item.reason = res.score, res.verdict, res.reason
                item.witness, item.metrics, item.parsed = res.witness, res.metrics, parsed
            except AcpError as e:
                item.score, item.verdict, item.reason = None, Grade.ERROR, str(e)
            except Exception as e:  # noqa: BLE001
                tb = traceback.extract_tb(e.__traceback__)[-1]
                item.score, item.verdict = None, Grade.ERROR
                item.reason = (
                    f"internal error (please report): {type(e).__name__}: {e} at "
                    f"{os.path.basename(tb.filename)}:{tb.lineno}"
                )
        item.seconds = round(time.perf_counter() - t0, 6)
        out.append(item)
    return out
