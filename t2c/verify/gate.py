"""The test-power gate: a suite may judge candidates only after it rejects the reference's mutants.

    gate(suite) -> GateResult

Takes a `Suite`; runs every mutant of the reference (mutants.py) through the host reference
driver on its cases under the candidates' tolerance model, a mutant killed by the first case it
fails or crashes on. Survivors get a strengthened suite up to `ROUNDS` times, then at least
`PROBE_CASES` probes beyond it: one no probe tells from the reference is equivalent and left
out; any other makes the kernel weakly tested (no candidate accepted). Probes never join the
suite. Also names weak inputs: what the `original` cases kill alone, and fixed points. Needs no
CUDA. docs/verification.md, "The test-power gate".
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from .. import config
from ..ir import Kernel
from ..runtime.build import BuildError
from .compare import compare, poison
from .mutants import Mutant, mutants
from .reference import ReferenceFailed, array_shape, build_variants, run_reference
from .synth import WIDE_BUDGET, Case, Suite, probes, strengthen

ROUNDS = 2
#: A survivor is called equivalent only after matching the reference on at least this many probes.
PROBE_CASES = 8


@dataclass(frozen=True)
class MutantResult:
    name: str
    operator: str
    where: str
    killed: bool
    by: str = ""          # the case that killed it (a survivor: the probe that tells it apart)
    how: str = ""         # mismatch description or crash
    equivalent: bool = False    # a survivor no probe tells from the reference: not in the gate


@dataclass
class GateResult:
    passed: bool
    mutants: list[MutantResult]
    rounds: int = 0                               # strengthening rounds used
    weak_inputs: dict = field(default_factory=dict)
    fixed_points: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def survivors(self) -> list[MutantResult]:
        return [m for m in self.mutants if not m.killed and not m.equivalent]

    @property
    def equivalent(self) -> list[MutantResult]:
        return [m for m in self.mutants if m.equivalent]

    @classmethod
    def from_summary(cls, d: dict) -> "GateResult":
        """The verdict `summary()` kept (the batch's suite stage), without running a mutant again."""
        return cls(d["passed"], [MutantResult(**m) for m in d["mutants"]], d["rounds"], d["weak_inputs"],
                   d["fixed_points"], d["seconds"])

    def summary(self) -> dict:
        return {"passed": self.passed, "killed": sum(m.killed for m in self.mutants),
                "total": len(self.mutants) - len(self.equivalent), "rounds": self.rounds,
                "survivors": [f"{m.name} ({m.where})" + (f"; told apart by {m.by}" if m.by else "")
                              for m in self.survivors],
                "equivalent": [f"{m.name} ({m.where})" for m in self.equivalent],
                "weak_inputs": self.weak_inputs, "fixed_points": self.fixed_points,
                "seconds": round(self.seconds, 2),
                "mutants": [asdict(m) for m in self.mutants]}


def _kills(k: Kernel, m: Mutant, case: Case, variant: tuple | None) -> str | None:
    """How the mutant fails this case, or None when it passes (`variant`: where it is built)."""
    timeout = max(10.0, 50 * case.ref_seconds + 5)
    # As a candidate does, the mutant starts with its `out` arrays poisoned: one that leaves
    # elements unwritten fails the comparison, as it would on the ladder.
    start = dict(case.inputs) | {a.name: poison(a.dtype, array_shape(a, case.sizes))
                                 for a in k.arrays if a.intent == "out"}
    try:
        run = run_reference(k.replace(reference=m.reference), case.sizes, start, timeout=timeout,
                            variant=variant)
    except ReferenceFailed as e:
        return f"crashed: {e}"
    except BuildError as e:             # as the ladder's build rung would reject it
        return f"does not build: {e.log.strip()[:200]}"
    c = compare(k, case.expected, run.outputs, case.sizes)
    return None if c.ok else c.describe()


def _order(cases: list[Case]) -> list[Case]:
    """Most telling first: random points, then full, then the tiny smoke sizes."""
    rank = {"random": 0, "extra": 0, "full": 1, "smoke": 2}
    return sorted((c for c in cases if c.expected is not None), key=lambda c: rank.get(c.rung, 3))


def _built_together(k: Kernel, ms: list[Mutant]) -> dict[str, tuple]:
    """Each mutant's (program, index) in one compile of them all; none when that compile fails:
    each then builds alone, and one that does not compile is killed as the build rung would."""
    try:
        exe = build_variants(k, tuple(m.reference for m in ms))
    except BuildError:
        return {}
    return {m.name: (exe, i) for i, m in enumerate(ms)}


def _try(k: Kernel, m: Mutant, cases: list[Case], variant: tuple | None = None) -> MutantResult:
    for c in _order(cases):
        how = _kills(k, m, c, variant)
        if how:
            return MutantResult(m.name, m.operator, m.where, True, c.label(), how[:300])
    return MutantResult(m.name, m.operator, m.where, False)


def _fixed_points(k: Kernel, cases: list[Case]) -> list[str]:
    out = []
    for c in cases:
        if c.expected is None or c.rung == "smoke" or any(a.intent == "out" for a in k.arrays) or k.returns:
            continue
        if all(np.array_equal(c.expected[a.name], c.inputs[a.name]) for a in k.arrays if a.intent == "inout"):
            out.append(f"{c.label()}: the outputs equal the inputs (doing nothing passes this case)")
    return out


def gate(suite: Suite, *, rounds: int = ROUNDS, jobs: int | None = None) -> GateResult:
    start = time.monotonic()
    k = suite.kernel
    ms = mutants(k)
    at = _built_together(k, ms) if ms else {}
    jobs = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(jobs) as pool:
        tries = lambda cases: (lambda m: _try(k, m, cases, at.get(m.name)))
        results = dict(zip([m.name for m in ms], pool.map(tries(suite.cases), ms)))
        used = 0
        for r in range(1, rounds + 1):
            left = [m for m in ms if not results[m.name].killed]
            if not left:
                break
            used = r
            added = strengthen(suite, r)
            for m, res in zip(left, pool.map(tries(added), left)):
                results[m.name] = res
        left = [m for m in ms if not results[m.name].killed]
        cases = probes(suite) if left else []
        for m, res in zip(left, pool.map(tries(cases), left)):
            results[m.name] = replace(res, killed=False, equivalent=not res.killed and len(cases) >= PROBE_CASES,
                                      by=f"probe {res.by}" if res.killed else "")
        weak = {}
        original = [c for c in suite.cases if c.distribution == "original" and c.expected is not None]
        # a diagnostic, not a verdict: at the random points when the original init is drawn there,
        # at the full dataset only within the wide point's budget (every mutant run at LARGE or
        # EXTRALARGE costs seconds to minutes of CPU, those of a kernel several minutes)
        original = [c for c in original if c.rung != "full"] or original
        budget = config.load().verify_point_work * WIDE_BUDGET
        if any(c.rung == "full" and (c.work or 0) > budget for c in original):
            weak["original"] = (f"not checked: the original init is drawn only at the full dataset, "
                                f"{max(c.work or 0 for c in original):,} loop iterations a run, past "
                                f"{budget:,} (T2C_VERIFY_POINT_WORK x {WIDE_BUDGET})")
            original = []
        if original:
            alone = list(pool.map(tries(original), ms))
            survivors = [m.name for m, res in zip(ms, alone) if not res.killed]
            if survivors:
                weak["original"] = (f"the original init alone kills {len(ms) - len(survivors)}/{len(ms)} "
                                    f"mutants; survivors: {', '.join(survivors)}")
    final = [results[m.name] for m in ms]
    return GateResult(all(r.killed or r.equivalent for r in final), final, used, weak,
                      _fixed_points(k, suite.cases), time.monotonic() - start)
