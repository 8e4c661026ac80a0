"""`python3 -m tessel`: the `tessel` command (tessel/cli.py)."""
import sys

from .cli import main

sys.exit(main())
