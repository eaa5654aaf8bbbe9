"""The races rung's check on the gpu backend, after the repeat run agreed (issue #39).

    gpu_race_check(run, start, emu_races) -> RungResult

Takes the ladder's `Run`; a race often gives the right answer by luck on real hardware, so it
runs `compute-sanitizer` memcheck (and racecheck where the candidate uses shared memory) at the
smallest random point, or, where none is found, the same source built for emu through emu's
races rung (no GPU needed). Any finding rejects; the result's `race_check` names the check that
ran. Where neither can run (no emu, or emu cannot build or emulate the candidate) the rung passes
on agreement and says "none available" with why: a limit of the emulator is no finding.
docs/verification.md, "The ladder".
"""
from __future__ import annotations

import re
import tempfile
import time
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

from .. import config
from ..runtime.build import BuildError
from ..runtime.process import run_process
from .harness import build_candidate, scrubbed_env
from .reference import write_array
from .runs import Run, RungResult, failure, poisoned_outputs
from .synth import Case

#: Emu outcomes that say the emulator could not judge the candidate, not that it is wrong: the
#: GPU already ran it correctly, and emulation is orders of magnitude slower than the device.
EMU_LIMITS = ("unsupported by the emulator", "timeout", "cpu time limit", "memory limit")


def gpu_race_check(run: Run, start: float, emu_races) -> RungResult:
    """`emu_races(run, start)` is emu's races rung (rungs.py), the fallback's check."""
    sanitizer = config.load().compute_sanitizer
    if sanitizer:
        return _sanitizer_check(run, sanitizer, start)
    return emu_fallback(run, start, emu_races)


def _sanitizer_check(run: Run, sanitizer: str, start: float) -> RungResult:
    # racecheck finds shared-memory hazards only; a candidate with no shared memory (no
    # __shared__, no .shared in inline PTX) has none: a tool start saved
    shared = run.source is None or "shared" in run.source
    detail = {"repeat": "agree", "compute_sanitizer": ["memcheck", "racecheck"] if shared else
              ["memcheck", "racecheck: not needed (no shared memory)"],
              "race_check": "compute-sanitizer racecheck+memcheck" if shared else
              "compute-sanitizer memcheck (no shared memory: racecheck not needed)"}
    case = min(run.suite.of("random"), key=lambda c: c.work, default=None)     # the least work
    for tool in ("memcheck", "racecheck") if shared else ("memcheck",):
        bad = sanitize(run, sanitizer, tool, case)
        if bad:
            return RungResult("races", False, bad[0], bad[1], detail, time.monotonic() - start)
    return RungResult("races", True, detail=detail, seconds=time.monotonic() - start)


def sanitize(run: Run, sanitizer: str, tool: str, case: Case | None) -> tuple[str, str] | None:
    """(reason, feedback) when compute-sanitizer's `tool` finds an error at `case`, else None."""
    if case is None:
        return None
    k = run.kernel
    with tempfile.TemporaryDirectory(prefix="t2c-cand-") as tmp:
        d = Path(tmp)
        for name, value in {**case.inputs, **poisoned_outputs(k, case.sizes)}.items():
            write_array(d / f"{name}.bin", value)
        argv = [sanitizer, "--tool", tool, "--error-exitcode", "97", str(run.build.exe), "device", str(d),
                *[str(case.sizes[s.name]) for s in k.sizes]]
        proc = run_process(argv, cwd=d, timeout=max(120, 1000 * case.ref_seconds), env=scrubbed_env())
    if proc.timed_out:
        return None          # too slow under the tool: no finding either way
    text = proc.stdout + proc.stderr
    found = re.search(r"ERROR SUMMARY: [1-9]|\(([1-9]\d*) errors?", text)
    if proc.returncode == 97 or found:
        words = "race" if tool == "racecheck" else "out-of-bounds access"
        lines = text.strip().splitlines()
        first = next((l for l in lines if "Invalid" in l or "hazard" in l.lower() and "0 hazards" not in l),
                     lines[0] if lines else "")
        return words, f"compute-sanitizer {tool}: {first.strip()[:300]}"
    if proc.returncode != 0:
        return failure(run, proc)
    return None


def emu_fallback(run: Run, start: float, emu_races) -> RungResult:
    """No compute-sanitizer: emu's races rung on the same source, reusing the gpu suite."""
    from .device import emu_available

    def unchecked(why: str) -> RungResult:
        return RungResult("races", True, detail={"repeat": "agree", "compute_sanitizer": "not found",
                                                 "race_check": f"none available ({why})"},
                          seconds=time.monotonic() - start)

    if run.source is None:
        return unchecked("the candidate's source is unknown, so it cannot be emulated")
    if not emu_available():
        return unchecked("no compute-sanitizer and no emu backend")
    try:
        build = build_candidate(run.kernel, run.source, "emu", sanitize=True)
    except BuildError as e:
        why = "unsupported by the emulator" if "does not model" in str(e) else "the emu build failed"
        return unchecked(f"{why}: {str(e)[:200]}")
    # the emu build runs under ASan, whose shadow mappings would trip the gpu's RLIMIT_DATA
    limits = replace(run.limits, data=None) if run.limits else None
    emu = replace(run, backend="emu", build=build, limits=limits, ahead={}, device=nullcontext)
    r = emu_races(emu, start)
    if not r.ok and r.reason in EMU_LIMITS:
        return unchecked(f"emu: {r.reason}: {r.feedback[:200]}")
    # emu_races's detail: the seeds and points on a pass, the case and the failing seed on a finding
    ran = (f"emu seeds {r.detail['emu_seeds']}" if r.ok
           else f"emu seeds (failed at seed {r.detail.get('emu_seed')})")
    r.detail = {"repeat": "agree", "compute_sanitizer": "not found", "race_check": ran, **r.detail}
    if not r.ok:
        r.feedback = (f"no compute-sanitizer, so the candidate ran on the emulator (it agreed with "
                      f"itself on the GPU, which a race often does by luck): {r.feedback}")
    return r
