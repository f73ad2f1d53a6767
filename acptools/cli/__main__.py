"""`python -m acptools.cli`: the same as the `acptools` command."""

import sys

from . import main

sys.exit(main())
