#!/usr/bin/env python3
"""Runs the examples of the README and docs as written.

Every ```sh and ```python block of README.md and docs/*.md (not
docs/reference/, which is generated) is a command a reader may copy. This
script runs each one and reports it as passed, failed or skipped, with its
file and line. The blocks of one Markdown file run in order in one
temporary directory, as a reader follows the page: a block may use what an
earlier one wrote (out/, out.mlir). That directory links every top-level
entry of the checkout (examples/, schedules/, scripts/, python/, ...), and
build/ links the build, so commands run literally as written and their
outputs stay out of the checkout. sh blocks run with `bash -e -o pipefail`,
python blocks with this interpreter and PYTHONPATH=python. The build's
bin/ is on PATH (docs/tuning.md writes plain `tessel-opt`), and
TESSEL_CACHE is a fresh directory.

A block that cannot run here says so in HTML comments on the lines right
above its fence (invisible when the Markdown is rendered):

  <!-- doc-test: gpu -->              needs an NVIDIA GPU: runs with --gpu only
  <!-- doc-test: skip: REASON -->     never runs (installs packages, needs
                                      the network, takes hours, elides
                                      arguments, ...)
  <!-- doc-test: stub CMD...: REASON -->
                                      runs with each CMD (a path such as
                                      scripts/setup.sh, or a program on
                                      PATH) replaced by a stand-in that
                                      exits 0
  <!-- doc-test: fails -->            must exit with a status in 1..127
                                      (the block shows an error)
  <!-- doc-test: prints: TEXT -->     its output (stdout and stderr) must
                                      contain TEXT
  <!-- doc-test: creates PATH... -->  must leave these non-empty files

Output listings are fenced as ```text (or without a language) and never
run. An unknown marker, or a marker on a block that never runs, is an
error. The exit status is 1 when a block that ran failed or a marker is
wrong, else 0.

    scripts/check-doc-examples.py              # README.md and docs/*.md
    scripts/check-doc-examples.py --gpu        # on a GPU host: gpu blocks too
    scripts/check-doc-examples.py --list docs/debugging.md
"""

import argparse
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RUNNABLE = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "python"}
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")


class Block:
    def __init__(self, path, line, lang, code, markers):
        self.path, self.line, self.lang, self.code = path, line, lang, code
        self.gpu = False
        self.skip = None        # reason
        self.stubs = []         # (command, reason)
        self.fails = False
        self.prints = []
        self.creates = []
        self.errors = []
        for m in markers:
            self._parse(m)
        if markers and lang not in RUNNABLE:
            self.errors.append(
                f"doc-test marker on a ```{lang or ''} block, which never runs")

    def _parse(self, marker):
        word, _, rest = marker.partition(" ")
        if marker == "gpu" or marker.startswith("gpu:"):
            self.gpu = True
        elif marker.startswith("skip:") and marker[5:].strip():
            self.skip = marker[5:].strip()
        elif word == "stub" and ":" in rest and rest.split(":")[0].split():
            commands, _, reason = rest.partition(":")
            self.stubs += [(c, reason.strip()) for c in commands.split()]
        elif marker == "fails":
            self.fails = True
        elif marker.startswith("prints:") and marker[7:].strip():
            self.prints.append(marker[7:].strip())
        elif word == "creates" and rest.split():
            self.creates += rest.split()
        else:
            self.errors.append(f"unknown doc-test marker '{marker}' (gpu, "
                               "skip: REASON, stub CMD...: REASON, fails, "
                               "prints: TEXT, creates PATH...)")

    def where(self, root):
        try:
            shown = self.path.resolve().relative_to(root)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


def blocks_of(path):
    """The fenced blocks of a Markdown file, with the markers above each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        markers, j = [], i - 1
        while j >= 0 and MARKER.match(lines[j]):
            markers.insert(0, MARKER.match(lines[j]).group(1))
            j -= 1
        start, code = i + 1, []
        i += 1
        while i < len(lines):
            close = FENCE.match(lines[i])
            if (close and close.group(2)[0] == fence[0]
                    and len(close.group(2)) >= len(fence)
                    and not close.group(3)):
                break
            line = lines[i]
            # Blocks in list items are indented like their fence.
            code.append(line[indent:] if line[:indent].isspace() else line)
            i += 1
        i += 1
        blocks.append(Block(path, start, lang, "\n".join(code) + "\n",
                            markers))
    return blocks


def git_entries(root):
    """Top-level entries of the checkout to link (tracked ones, so that a
    reader's own out/ or build-san/ stays out), else all of them."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"],
                             capture_output=True, check=True).stdout
        names = {p.split("/")[0] for p in out.decode().split("\0") if p}
    except (OSError, subprocess.CalledProcessError):
        names = {p.name for p in root.iterdir()}
    return sorted(n for n in names if n not in (".git", "build")
                  and (root / n).exists())


class Workdir:
    """A temporary directory that looks like the checkout."""

    def __init__(self, root, build, entries):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="doc-test-"))
        for name in entries:
            (self.dir / name).symlink_to(root / name)
        (self.dir / "build").symlink_to(build)
        self.meta = self.dir / ".doc-test"
        self.meta.mkdir()
        self.cache = self.meta / "cache"

    def stub(self, command, reason, bindir):
        """Replaces `command` for one block; returns an undo function."""
        script = ("#!/bin/sh\n"
                  f"echo {shlex.quote(f'doc-test: stub for {command} ({reason})')} >&2\n")
        if "/" not in command:
            target = bindir / command
            target.write_text(script)
            target.chmod(0o755)
            return lambda: None
        rel = pathlib.PurePosixPath(command)
        parent = self.dir
        for part in rel.parts[:-1]:
            parent = parent / part
            if parent.is_symlink():  # a linked directory: link its entries
                real = parent.resolve()
                parent.unlink()
                parent.mkdir()
                for child in real.iterdir():
                    (parent / child.name).symlink_to(child)
            parent.mkdir(exist_ok=True)
        target = parent / rel.name
        original = target.resolve() if target.is_symlink() else None
        if target.exists() or target.is_symlink():
            target.unlink()
        target.write_text(script)
        target.chmod(0o755)

        def undo():
            target.unlink()
            if original:
                target.symlink_to(original)
        return undo

    def run(self, block, index, timeout):
        """Runs a block; returns (ok, why, output)."""
        bindir = self.meta / f"stubs-{index}"
        bindir.mkdir()
        undos = [self.stub(c, r, bindir) for c, r in block.stubs]
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join(
            [str(bindir), str(self.dir / "build" / "bin"), env.get("PATH", "")])
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(self.dir / "python"), env.get("PYTHONPATH")) if p)
        env["TESSEL_CACHE"] = str(self.cache)
        source = self.meta / f"block-{index}.{'py' if block.lang == 'python' else 'sh'}"
        source.write_text(block.code)
        if RUNNABLE[block.lang] == "python":
            command = [sys.executable, str(source)]
        else:
            command = ["bash", "-e", "-o", "pipefail", str(source)]
        start = time.monotonic()
        # Its own process group, so that a timeout ends what it started too.
        proc = subprocess.Popen(command, cwd=self.dir, env=env,
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            return False, f"timed out after {timeout:g} s", output.decode(
                errors="replace")
        finally:
            for undo in undos:
                undo()
        status, output = proc.returncode, output.decode(errors="replace")
        seconds = time.monotonic() - start
        if block.fails:
            if not 1 <= status <= 127:
                return False, (f"exit status {status}, expected a failure "
                               "(1..127)"), output
        elif status != 0:
            return False, f"exit status {status}", output
        for text in block.prints:
            if text not in output:
                return False, f"output lacks '{text}'", output
        for path in block.creates:
            p = self.dir / path
            if not p.is_file() or p.stat().st_size == 0:
                return False, f"did not create {path}", output
        return True, f"{seconds:.1f} s", output

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def check_file(path, root, build, entries, args, counts):
    """Runs one Markdown file's blocks in order; returns its marker errors."""
    bad, work = 0, None
    try:
        for index, block in enumerate(blocks_of(path)):
            where = block.where(root)
            if block.errors:
                bad += 1
                for e in block.errors:
                    print(f"ERROR {where}: {e}")
                continue
            if block.lang not in RUNNABLE:
                continue
            if block.skip:
                counts["skipped"] += 1
                print(f"SKIP  {where} {block.lang}: {block.skip}")
                continue
            if block.gpu and not args.gpu:
                counts["gpu"] += 1
                print(f"GPU   {where} {block.lang}: needs a GPU (--gpu)")
                continue
            if args.list:
                stubs = "".join(f", {c} stubbed" for c, _ in block.stubs)
                print(f"RUN   {where} {block.lang}{stubs}")
                continue
            if work is None:
                work = Workdir(root, build, entries)
            ok, why, output = work.run(block, index, args.timeout)
            counts["passed" if ok else "failed"] += 1
            print(f"PASS  {where} {block.lang} ({why})" if ok
                  else f"FAIL  {where} {block.lang}: {why}")
            lines = output.splitlines()
            for line in lines if args.verbose else [] if ok else lines[-40:]:
                print(f"      | {line}")
            sys.stdout.flush()
    finally:
        if work is not None:
            work.remove()
    return bad


def main():
    root_default = pathlib.Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("files", nargs="*", type=pathlib.Path,
                        help="Markdown files (default: README.md, docs/*.md)")
    parser.add_argument("--root", type=pathlib.Path, default=root_default,
                        help="the checkout (default: this script's)")
    parser.add_argument("--build", type=pathlib.Path,
                        help="the build that build/ stands for "
                             "(default: ROOT/build)")
    parser.add_argument("--gpu", action="store_true",
                        help="also run the blocks marked gpu")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds one block may run (default 600)")
    parser.add_argument("--list", action="store_true",
                        help="list the blocks and what would run; run none")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every block's output")
    args = parser.parse_args()
    root = args.root.resolve()
    build = (args.build or root / "build").resolve()
    files = args.files or [root / "README.md"] + sorted(
        (root / "docs").glob("*.md"))

    entries = git_entries(root)
    counts = {"passed": 0, "failed": 0, "skipped": 0, "gpu": 0}
    bad = sum(check_file(path, root, build, entries, args, counts)
              for path in files)
    if not args.list:
        print(f"doc examples: {counts['passed']} passed, {counts['failed']} "
              f"failed, {counts['skipped']} skipped, {counts['gpu']} need a GPU"
              + (f", {bad} marker errors" if bad else ""))
    return 1 if counts["failed"] or bad else 0


if __name__ == "__main__":
    sys.exit(main())
