"""Compile C (and later CUDA) programs into a content-addressed binary cache.

`build(sources, flags)` gives the path of an executable whose key covers the
source texts, the compiler, its version and the exact command line; a second call
with the same inputs is a cache hit.  Writes are atomic (build into a temporary
name, then rename), so a killed build never leaves a half-written binary.  A
failing compile raises `BuildError` with the compiler's log; one that runs past
`COMPILE_TIMEOUT` is killed with its processes and raises `BuildTimedOut`.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from .. import __version__, config
from ..errors import UserError
from .process import COMPILE_TIMEOUT, QUERY_TIMEOUT, clean_env, run_process


class BuildError(Exception):
    def __init__(self, message: str, log: str, command: list[str]):
        super().__init__(message)
        self.log, self.command = log, command


class BuildTimedOut(BuildError, UserError):
    """A compile killed at its time limit.  The code keeps the compiler busy (or the machine is
    starved), which no compiler log explains: the message says what to look for.  A BuildError to
    the ladder (a candidate or mutant that does not build); a UserError to a command or a batch,
    which print its line, never "internal error"."""

    def __init__(self, message: str, log: str = "", command: list[str] = (), *, hint: str | None = None):
        UserError.__init__(self, message, hint=hint)
        self.log, self.command = log, command


#: What a timed-out compile's message tells the user to look for.
BUSY_COMPILER = ("look in the code for what keeps a compiler busy (a macro or initializer that expands "
                 "without bound, a huge unrolled body)")


@lru_cache(maxsize=8)
def compiler_version(cc: str) -> str:
    try:
        r = run_process([cc, "--version"], env=clean_env(), timeout=QUERY_TIMEOUT)
        return r.stdout.splitlines()[0] if r.ok else "unknown"
    except (OSError, IndexError):
        return "unknown"


@lru_cache(maxsize=None)
def code_version(*packages: str) -> str:
    """Hash of t2c's own code for these subpackages: a stage's output changes when its code does."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(__version__.encode())
    for pkg in packages:
        for f in sorted((root / pkg).rglob("*")):
            if f.is_file() and f.suffix in (".py", ".h", ".hpp", ".cpp", ".cu", ".j2"):
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def seal(built: Path, final: Path) -> None:
    """Record the hash of a build output at `built` for its cached place `final` (before it moves
    there), so that `intact` can tell a cached file cut short or changed since."""
    final.with_name(final.name + ".sha256").write_text(sha256_file(built))


def intact(path: Path) -> bool:
    """A cached build output whose bytes still hash to what was recorded when it was built; a
    damaged or unrecorded one is built again, never run (its verdict would be cached)."""
    try:
        return path.with_name(path.name + ".sha256").read_text() == sha256_file(path)
    except OSError:
        return False


def build(sources: dict[str, str], flags: list[str], *, cc: str | None = None,
          libs: tuple[str, ...] = ("-lm",), cache_dir: Path | None = None) -> Path:
    """Compile {filename: text} into one executable; returns its cached path."""
    cfg = config.load()
    cc = cc or cfg.cc
    cache = Path(cache_dir or cfg.build_cache or cfg.cache_dir) / "bin"
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + sources[name].encode() + b"\0")
    h.update(repr((cc, compiler_version(cc), flags, libs)).encode())
    exe = cache / h.hexdigest()[:24] / "prog"
    if intact(exe):
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=exe.parent) as tmp:
        paths = []
        for name, text in sources.items():
            (Path(tmp) / name).write_text(text)
            paths.append(str(Path(tmp) / name))
        out = Path(tmp) / "prog"
        cmd = [cc, *flags, *[p for p in paths if not p.endswith(".h")], "-o", str(out), *libs]
        # the reference may be the model's code: its build sees no secret of the caller's
        proc = run_process(cmd, cwd=tmp, env=clean_env(), timeout=COMPILE_TIMEOUT)
        if proc.timed_out:
            what = ", ".join(n for n in sorted(sources) if not n.endswith(".h"))
            message = f"{Path(cc).name} did not finish compiling {what} within {COMPILE_TIMEOUT:.0f} s (stopped)"
            raise BuildTimedOut(message, f"{proc.stdout}{proc.stderr}\n{message}; {BUSY_COMPILER}\n", cmd,
                                hint=BUSY_COMPILER)
        if proc.returncode != 0:
            raise BuildError(f"{cc} failed ({proc.describe()})", proc.stderr, cmd)
        seal(out, exe)
        os.replace(out, exe)
    return exe
