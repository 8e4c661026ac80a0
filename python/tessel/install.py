"""Where this package finds Tessel's tools, runtime library and schedules.

Tessel's tools (tessel-opt, tessel-run) and runtime (libTesselCAPI.so) are
looked for, in order:

1. in $TESSEL_HOME, when it is set: a checkout (build/bin, build/lib), a
   bundle made by scripts/make-bundle.sh or an install prefix
   (`cmake --install build --prefix P`: P/bin, P/lib), and nowhere else;
2. beside this package: the checkout (python/tessel), bundle
   (tessel/python/tessel) or install prefix (P/share/tessel/python/tessel)
   it lives in;
3. on PATH (a tessel-opt found there brings its prefix's lib/ along).

$TESSEL_CAPI_LIBRARY names the runtime library itself. The schedule
libraries and their tuned records are the package's own data
(tessel/schedules: in a checkout a link to the checkout's schedules/, in a
wheel a copy), or $TESSEL_HOME's schedules when it is set. An error says
every place it looked.
"""

import os
import pathlib
import shutil

from .errors import TesselError

_PACKAGE = pathlib.Path(__file__).resolve().parent


def _env_home():
    env = os.environ.get("TESSEL_HOME")
    return pathlib.Path(env).resolve() if env else None


def _package_homes():
    """Checkouts, bundles or install prefixes this package lives in."""
    root = _PACKAGE.parents[1]  # holds python/tessel
    homes = [root]
    if root.name == "tessel" and root.parent.name == "share":
        homes.append(root.parents[1])  # P/share/tessel/python/tessel -> P
    return homes


def _homes():
    """(home, why) pairs to look in, in order."""
    env = _env_home()
    if env:
        return [(env, "$TESSEL_HOME")]
    return [(h, "beside the package") for h in _package_homes()]


def _path_prefix():
    """The prefix of the tessel-opt on PATH (P for P/bin/tessel-opt), or
    None."""
    found = shutil.which("tessel-opt")
    return pathlib.Path(found).resolve().parents[1] if found else None


def home():
    """The Tessel checkout, bundle or install prefix in use: $TESSEL_HOME,
    else the one this package lives in, else the prefix of the tessel-opt on
    PATH (None when there is none)."""
    env = _env_home()
    if env:
        return env
    for h in _package_homes():
        if any((h / d / "tessel-opt").is_file() for d in ("bin", "build/bin")):
            return h
    return _path_prefix()


_HINT = ("set TESSEL_HOME to a Tessel checkout, bundle or install prefix, "
         "put its bin/ on PATH, or build Tessel with scripts/setup.sh")


def _first_file(candidates, what, hint=_HINT):
    """The first of `candidates` ((path, why) pairs) that is a file."""
    for path, _ in candidates:
        if path.is_file():
            return path
    looked = "\n".join(f"  {p} ({why})" for p, why in candidates)
    raise TesselError(f"cannot find {what}; looked in:\n{looked}\n{hint}")


def tool(name):
    """Path of a Tessel tool such as tessel-opt."""
    candidates = [(h / d / name, why) for h, why in _homes()
                  for d in ("bin", "build/bin")]
    if not _env_home():
        found = shutil.which(name)
        candidates.append((pathlib.Path(found) if found
                           else pathlib.Path(name), "PATH"))
    return _first_file(candidates, name)


def capi_library():
    """Path of libTesselCAPI.so ($TESSEL_CAPI_LIBRARY overrides)."""
    env = os.environ.get("TESSEL_CAPI_LIBRARY")
    if env:
        return _first_file([(pathlib.Path(env), "$TESSEL_CAPI_LIBRARY")],
                           "libTesselCAPI.so",
                           "point TESSEL_CAPI_LIBRARY at libTesselCAPI.so, "
                           "or unset it")
    candidates = [(h / d / "libTesselCAPI.so", why) for h, why in _homes()
                  for d in ("lib", "build/lib")]
    prefix = None if _env_home() else _path_prefix()
    if prefix:
        candidates.append((prefix / "lib" / "libTesselCAPI.so",
                           "beside the tessel-opt on PATH"))
    return _first_file(candidates, "libTesselCAPI.so")


def schedules_dir():
    """The schedule libraries and, under tuned/, the shipped tuning records:
    $TESSEL_HOME's (schedules/ or share/tessel/schedules/), else the
    package's own."""
    env = _env_home()
    if env:
        for d in (env / "schedules", env / "share" / "tessel" / "schedules"):
            if d.is_dir():
                return d
        return env / "schedules"
    return _PACKAGE / "schedules"


def cache_dir():
    """Compiled kernels and the user's tuning database ($TESSEL_CACHE)."""
    env = os.environ.get("TESSEL_CACHE")
    if env:
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "tessel"
