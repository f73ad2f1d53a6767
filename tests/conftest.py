"""Test session setup: the installed package first on sys.path, and no proof store from earlier runs.

Shared helpers (the oracle, the simulator, where the data lives) are in tests/support/."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# `python -m pytest` and pytest's `pythonpath = ["."]` put the checkout first on sys.path, where the
# editable install leaves an `acptools.egg-info` without PEP 610 data; importlib.metadata would find that
# one first, and Inspect AI would then register our tasks without their `acptools/` namespace. The
# checkout goes last instead (it still provides what the tests import from it).
_checkout = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _checkout] + [str(_checkout)]

# every test proves its answers afresh: a proof store left by an earlier run must never answer for
# the code under test (tests of the store itself pass their own file)
os.environ["ACPTOOLS_CACHE"] = "off"

# the proof store's rows are authenticated with a key file (acptools.proofs.signing_key): tests use one of their
# own, made on first use in a private folder, never the user's ~/.config/acptools/store.key
_key_folder = tempfile.mkdtemp(prefix="acptools-test-key-")
atexit.register(shutil.rmtree, _key_folder, True)
os.environ["ACPTOOLS_STORE_KEY_FILE"] = os.path.join(_key_folder, "store.key")
