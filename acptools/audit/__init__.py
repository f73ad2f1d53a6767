"""Can a record set be answered without reasoning? Trivial answerers (copy a goal fact, copy from the
state, always yes, the most frequent answer or letter, the longest option, None, ...) scored per form
and task beside chance.

    from acptools.audit import audit
    report = audit(load_records("records.jsonl"))
    print(report.table())          # or report.to_json(); report.flagged(): the answerers far from chance

`acptools audit RECORDS...` prints the same (docs/generating.md, "Auditing a record set").
"""

from .answerers import ANSWERERS
from .audit_report import TOLERANCE, Audit, audit

__all__ = ["audit", "Audit", "ANSWERERS", "TOLERANCE"]
