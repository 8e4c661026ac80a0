#!/usr/bin/env python3
"""`tessel race` from a checkout: python/tessel/race.py says what it does."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from tessel.race import main  # noqa: E402

sys.exit(main(prog="bench/race.py"))
