#!/bin/sh
# `tessel` (python/tessel/cli.py) from an install prefix: its Python
# package is in ../share/tessel/python.
here=$(dirname "$(readlink -f "$0")")
PYTHONPATH="$here/../share/tessel/python${PYTHONPATH:+:$PYTHONPATH}" \
  exec "${TESSEL_PYTHON:-python3}" -m tessel "$@"
