"""Where this package finds Tessel's tools, runtime library and schedules.

The package lives in a Tessel checkout (python/tessel, tools in build/) or in
a bundle made by scripts/make-bundle.sh (python/tessel, tools in bin/ and
lib/). $TESSEL_HOME points it at another checkout or bundle.
"""

import os
import pathlib
import shutil

from .errors import TesselError


def home():
    """The Tessel checkout or bundle in use."""
    env = os.environ.get("TESSEL_HOME")
    if env:
        return pathlib.Path(env).resolve()
    return pathlib.Path(__file__).resolve().parents[2]


def _first_file(candidates, what):
    for path in candidates:
        if path.is_file():
            return path
    looked = ", ".join(str(p) for p in candidates)
    raise TesselError(
        f"cannot find {what} (looked in: {looked}); build Tessel with "
        "scripts/setup.sh, or set TESSEL_HOME to a Tessel checkout or bundle")


def tool(name):
    """Path of a Tessel tool such as tessel-opt."""
    h = home()
    candidates = [h / "bin" / name, h / "build" / "bin" / name]
    found = shutil.which(name)
    if found:
        candidates.append(pathlib.Path(found))
    return _first_file(candidates, name)


def capi_library():
    """Path of libTesselCAPI.so ($TESSEL_CAPI_LIBRARY overrides)."""
    env = os.environ.get("TESSEL_CAPI_LIBRARY")
    if env:
        return _first_file([pathlib.Path(env)], "libTesselCAPI.so")
    h = home()
    return _first_file([h / "lib" / "libTesselCAPI.so",
                        h / "build" / "lib" / "libTesselCAPI.so"],
                       "libTesselCAPI.so")


def schedules_dir():
    """The schedule libraries and, under tuned/, the shipped tuning records."""
    return home() / "schedules"


def cache_dir():
    """Compiled kernels and the user's tuning database ($TESSEL_CACHE)."""
    env = os.environ.get("TESSEL_CACHE")
    if env:
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "tessel"
