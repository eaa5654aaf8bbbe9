"""What the runtime rungs share: the candidate's `Run`, each rung's `RungResult`, and how
a process that did not end well reads (`failure`: a short reason and feedback).

The rungs (rungs.py) and the gpu race check (racecheck.py) both build on these.
"""
from __future__ import annotations

import re
import signal
from contextlib import nullcontext
from dataclasses import dataclass, field

from ..ir import Kernel
from ..runtime.emu.findings import classify
from ..runtime.process import ProcessResult
from .compare import poison
from .harness import CandidateBuild, Limits
from .reference import array_shape
from .synth import Suite


@dataclass
class RungResult:
    name: str
    ok: bool
    reason: str = ""
    feedback: str = ""
    detail: dict = field(default_factory=dict)
    seconds: float = 0.0
    skipped: bool = False

    def summary(self) -> dict:
        return {"name": self.name, "ok": self.ok, "skipped": self.skipped, "reason": self.reason,
                "feedback": self.feedback, "seconds": round(self.seconds, 3), "detail": self.detail}


@dataclass
class Run:
    """What the runtime rungs share for one candidate."""
    kernel: Kernel
    backend: str
    suite: Suite
    build: CandidateBuild
    limits: Limits | None
    filename: str = "candidate.cu"
    worst: float = 0.0                    # worst error / bound seen on any passing case
    failure: float | None = None          # error / bound of the comparison that failed (inf: not
                                          # a multiple of a bound: an exact array differs, a NaN)
    timeout: float | None = None          # wall-clock floor of one run (config default)
    source: str | None = None             # the candidate's text (None: unknown)
    ahead: dict = field(default_factory=dict)   # rung -> (outputs, failed process) run in advance
    # Entered around a run on the device outside the ladder's slot (a racecheck diagnosis after
    # the full rung; the bench's timed run without `timed_device`); nothing while the ladder
    # holds the slot.
    device: object = nullcontext
    # Entered around the bench's timed process instead of `device`: the engine's hold of the
    # whole GPU, so that no other run shares it while it is timed.
    timed_device: object = None
    # The bench stops timing after harness.EARLY_REPS repetitions when the fastest took longer
    # (an options search's bar: a clearly slower candidate cannot win)
    slower_than: float | None = None


def poisoned_outputs(k: Kernel, sizes: dict) -> dict:
    """Each `out` array filled with poison at `sizes` (an element the candidate leaves is seen)."""
    return {a.name: poison(a.dtype, array_shape(a, sizes)) for a in k.arrays if a.intent == "out"}


def failure(run: Run, proc: ProcessResult) -> tuple[str, str]:
    """(reason, feedback) for a process that did not end well."""
    err = proc.stderr.replace(str(run.build.exe), "prog")
    if proc.timed_out:
        return "timeout", f"no result within {proc.seconds:.0f} s (an endless loop, a deadlock or far too slow)"
    if "t2c: out-of-bounds write" in err:
        line = next(l for l in err.splitlines() if "t2c: out-of-bounds write" in l)
        return "out-of-bounds write", line.replace("t2c: ", "")
    memory_words = ("allocation-size-too-big", "requested allocation size", "out of memory",
                    "hard rss limit", "rss-limit-exceeded", "cudaErrorMemoryAllocation",
                    "out of host memory")
    if any(w in err for w in memory_words):
        return "memory limit", _last_lines(err)
    if run.backend == "emu":
        v = classify(proc)
        if v.status == "oob" and (v.message.startswith("SEGV") or "null pointer" in v.message):
            return "crash (SIGSEGV)", _tidy(run, v.message)
        if v.status == "failed" and v.message.startswith("undefined behaviour: "):   # UBSan: which, where
            what = v.message.removeprefix("undefined behaviour: ").split(":")[0].split(" at ")[0]
            return f"undefined behaviour ({what})", _tidy(run, v.message)
        if v.status not in ("ok", "failed", "crash"):
            names = {"oob": "out-of-bounds access", "race": "race", "divergent_barrier": "divergent barrier",
                     "unsupported": "unsupported by the emulator", "timeout": "timeout"}
            return names.get(v.status, v.status), _tidy(run, v.message)
    if "t2c: cuda error" in err:
        line = next(l for l in err.splitlines() if "t2c: cuda error" in l)
        return "cuda error", line.replace("t2c: ", "")
    if proc.signal == signal.SIGXFSZ:
        return "output size limit", "the program wrote more than the output limit allows"
    if proc.signal == signal.SIGXCPU:
        return "cpu time limit", "the program exceeded its CPU time limit"
    if proc.signal:
        return f"crash ({signal.Signals(proc.signal).name})", _last_lines(err) or proc.describe()
    return f"crash (exit code {proc.returncode})", _last_lines(err) or proc.describe()


def _tidy(run: Run, text: str) -> str:
    """Name the user's file, not the build directory's copy of it."""
    return re.sub(r"\S*candidate\.cu", run.filename, text)


def _last_lines(err: str, n: int = 3) -> str:
    return " | ".join(l.strip() for l in err.strip().splitlines()[-n:])[:500]
