"""Task configs for other harnesses, for any record file (ACPBench Hard and every generated form).

acptools export lm-eval DIR --data FILE...     # lm-eval task YAMLs + a utils.py calling our grader
"""

from .harness_prompts import record_prompt, record_stops
from .lm_eval_tasks import export_lm_eval

__all__ = ["export_lm_eval", "record_prompt", "record_stops"]
