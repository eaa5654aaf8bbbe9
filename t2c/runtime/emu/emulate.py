"""Run a standalone CUDA program on the CPU under several seeds and judge it.

    emulate(cu_file, args, seeds=K, sanitize=..., race_check=...) -> EmuOutcome

Takes a `.cu` program and its arguments; builds it (`build_emu`) and runs it once per scheduling
seed in a fresh working directory. The first seed with a finding (out-of-bounds, divergent
barrier, crash, ...) decides; otherwise stdout and the written files must agree across seeds
(a difference is a race, but for last-digit rounding, which is only reported); with
`race_check` a ThreadSanitizer build runs once more, so a lost update that happened to agree is
still a race at its line. docs/verification.md, "The emu backend".
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..process import run_process
from . import settings
from .build import build_emu, first_error
from .findings import RunVerdict, classify

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)", re.I)
ROUNDING_RTOL = 1e-5


@dataclass(frozen=True)
class SeedRun:
    seed: int
    status: str
    message: str
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    files: dict = field(default_factory=dict)   # relative path -> bytes the program wrote


@dataclass(frozen=True)
class EmuOutcome:
    status: str          # one of settings.STATUSES
    message: str         # one line; file:line where known
    stdout: str          # of the first seed
    stderr: str
    per_seed: tuple[SeedRun, ...] = ()
    file: str | None = None
    line: int | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def emulate(cu_file, args=(), *, seeds: int = 3, sanitize: bool = False, timeout: float = 60,
            workdir=None, cache_dir=None, extra_sources=(), include_dirs=(), defines=(),
            env: dict | None = None, race_check: bool = False) -> EmuOutcome:
    """Build `cu_file` for the CPU and run it under `seeds` seeds; see the module doc."""
    cu_file = Path(cu_file)
    with tempfile.TemporaryDirectory(prefix="t2c-emu-") as tmp:
        tmp = Path(tmp)
        build = build_emu([cu_file], tmp / "program", sanitize=sanitize, extra_sources=extra_sources,
                          include_dirs=include_dirs, defines=defines, cache_dir=cache_dir)
        if build.unsupported is not None:
            u = build.unsupported
            return EmuOutcome("unsupported", str(u), "", build.log, file=u.file, line=u.line)
        if not build.ok:
            return EmuOutcome("build_error", first_error(build.log), "", build.log)
        runs: list[SeedRun] = []
        outcome = None
        for seed in range(max(1, seeds)):
            run = _run_seed(build.exe, args, seed, timeout, workdir, tmp / f"seed{seed}", env)
            runs.append(run[0])
            if run[1].status != "ok":
                v = run[1]
                outcome = EmuOutcome(v.status, f"{v.message} (seed {seed})" if seed else v.message,
                                     runs[0].stdout, run[0].stderr, tuple(runs), v.file, v.line)
                break
        outcome = outcome or _compare(runs)
        # A program whose own check failed, or whose results change with the thread order, may
        # hold a race: ThreadSanitizer names it (array, both lines) where the outputs cannot.
        if race_check or outcome.status in ("failed", "race"):
            checked = build_emu([cu_file], tmp / "program-tsan", sanitize="thread", extra_sources=extra_sources,
                                include_dirs=include_dirs, defines=defines, cache_dir=cache_dir)
            if checked.ok:
                run, verdict = _run_seed(checked.exe, args, 0, timeout * 4, workdir, tmp / "race-check", env)
                if verdict.status == "race":
                    why = "" if outcome.status == "ok" else f" (found after: {outcome.message})"
                    return EmuOutcome("race", verdict.message + why, outcome.stdout, run.stderr, (*runs, run),
                                      verdict.file, verdict.line)
                if outcome.status == "ok" and verdict.status not in ("ok", "timeout") \
                        and not _TSAN_GAVE_UP.search(run.stderr):
                    # the same program failed under another thread order: a fault the seeds missed
                    return EmuOutcome(verdict.status, f"{verdict.message} (in the race check's run: the "
                                      f"ThreadSanitizer build, another thread order)", outcome.stdout, run.stderr,
                                      (*runs, run), verdict.file, verdict.line)
        return outcome


#: ThreadSanitizer stopping for its own reasons (its thread limit, a memory map it cannot use):
#: the race check did not run, which says nothing about the program
_TSAN_GAVE_UP = re.compile(r"FATAL: ThreadSanitizer|ThreadSanitizer: Thread limit|ThreadSanitizer: CHECK failed")


def _run_seed(exe: Path, args, seed: int, timeout: float, workdir, rundir: Path,
              env: dict | None) -> tuple[SeedRun, RunVerdict]:
    if workdir is not None:
        shutil.copytree(workdir, rundir)
    else:
        rundir.mkdir()
    before = _snapshot(rundir)
    run_env = dict(os.environ if env is None else env)
    run_env[settings.SEED_ENV] = str(seed)
    result = run_process([str(exe), *map(str, args)], cwd=rundir, env=run_env, timeout=timeout)
    verdict = classify(result)
    after = _snapshot(rundir)
    written = {k: v for k, v in after.items() if before.get(k) != v}
    return SeedRun(seed, verdict.status, verdict.message, result.returncode, result.stdout, result.stderr,
                   result.seconds, written), verdict


def _snapshot(root: Path, limit: int = 64 << 20) -> dict[str, bytes]:
    out, total = {}, 0
    for p in sorted(root.rglob("*")):
        if p.is_file() and total < limit:
            data = p.read_bytes()
            total += len(data)
            out[str(p.relative_to(root))] = data
    return out


def _compare(runs: list[SeedRun]) -> EmuOutcome:
    first = runs[0]
    rounding = None
    for other in runs[1:]:
        for name, a, b in [("stdout", first.stdout.encode(), other.stdout.encode())] + \
                          [(n, first.files.get(n, b""), other.files.get(n, b""))
                           for n in sorted(set(first.files) | set(other.files))]:
            if a == b:
                continue
            diff = _first_difference(a, b)
            where = f"{name} {diff}" if diff else name
            if _only_rounding(a, b):
                rounding = rounding or f"seeds {first.seed} and {other.seed} differ only by rounding in {where}"
                continue
            msg = (f"output differs between seed {first.seed} and seed {other.seed} ({where}): the result depends "
                   f"on thread or block order (a race, or a read of uninitialised memory)")
            return EmuOutcome("race", msg, first.stdout, first.stderr, tuple(runs))
    return EmuOutcome("ok", f"ok ({len(runs)} seeds{'; ' + rounding if rounding else ''})", first.stdout,
                      first.stderr, tuple(runs))


def _first_difference(a: bytes, b: bytes) -> str:
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x.strip()[:60]!r} vs {y.strip()[:60]!r}"
    return f"line {min(len(la), len(lb)) + 1}: one output is longer" if len(la) != len(lb) else ""


def _only_rounding(a: bytes, b: bytes) -> bool:
    """Same text except numbers that agree to ROUNDING_RTOL (relative)."""
    sa, sb = a.decode(errors="replace"), b.decode(errors="replace")
    if _NUMBER.sub("#", sa) != _NUMBER.sub("#", sb):
        return False
    for x, y in zip(_NUMBER.findall(sa), _NUMBER.findall(sb)):
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if fx != fy and not abs(fx - fy) <= max(ROUNDING_RTOL * max(abs(fx), abs(fy)), _last_digit(x, y)):
            return False
    return True


def _last_digit(x: str, y: str) -> float:
    """One unit in the last printed decimal (plus a little), for numbers printed with a
    fixed number of decimals; 0 for integers, whose every change matters."""
    if "." not in x or "." not in y or "e" in x.lower() or "e" in y.lower():
        return 0.0
    decimals = min(len(x.split(".")[1]), len(y.split(".")[1]))
    return 1.0001 * 10.0 ** -decimals
