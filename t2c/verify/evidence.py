"""The evidence card: what one verification run established about one candidate.

An `Evidence` is filled by the ladder and read by the CLI (`t2c verify`), the
reports and evolution.  It holds the verdict, the rung that rejected (with a
short reason and detailed feedback), every rung's record, the run's seed (the
secret, revealed after the run so a failure can be replayed with `--seed`), the
size points, the tolerance model, the worst error seen, the mutant gate, the
race/out-of-bounds result, the build figures, timings and the device
fingerprint.  `to_json()` is the stable form; `render()` a short text form.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from .compare import RTOL_FACTOR

TOLERANCE_MODEL = {
    "integers": "exact",
    "reals": "|c - r| / max(|r|, rms(reference array)) <= rtol",
    "rtol": f"{RTOL_FACTOR:g} * eps(dtype) * K, K = sum of the case's sizes",
    "eps": {"double": 2.220446049250313e-16, "float": 1.1920929e-07},
    "16-bit": "float16, bfloat16: float's rtol on |c - r| less one ulp of the type (the final rounding)",
    "nonfinite": "NaN/inf where the reference is finite fails",
    "unwritten": "out arrays start as a NaN with a marked payload; any left fails",
    "conditioning": "draws on which FMA contraction or 4-ulp input noise moves the reference by more "
                    "than 1/8 of the bound are discarded",
    "doc": "docs/verification.md",
}


@dataclass
class Evidence:
    kernel: str
    kernel_key: str
    candidate: str
    candidate_sha256: str
    backend: str
    seed: int
    seed_given: bool
    dataset: str
    accepted: bool = False
    rung: str | None = None             # the rung that rejected, None when accepted
    reason: str = ""
    feedback: str = ""
    rungs: list = field(default_factory=list)
    sizes: dict = field(default_factory=dict)
    tolerance: dict = field(default_factory=lambda: dict(TOLERANCE_MODEL))
    max_error: float | None = None      # worst error / bound over every case judged, a failing
                                        # one included (> 1: rejected for it); None: not measurable
    mutant_gate: dict = field(default_factory=dict)
    races: dict = field(default_factory=dict)
    build: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    device: dict = field(default_factory=dict)
    suite: dict = field(default_factory=dict)
    isolation: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=_plain)

    def summary(self) -> str:
        """One line for a batch table."""
        step = (self.suite.get("full_step") or {}).get("line", "")
        if self.accepted:
            worst = f", max error {self.max_error:.2g} of the bound" if self.max_error is not None else ""
            return f"accepted on {self.backend} (seed {self.seed}{worst})" + (f"; {step}" if step else "")
        return f"rejected at {self.rung}: {self.reason}: {self.feedback}"[:300]

    def figures(self) -> dict:
        """Scalar figures for tables: the worst error against the bound, bench times if any."""
        out = {"max_error": self.max_error, "rung": self.rung, "reason": self.reason}
        k = self.timings.get("kernel_ms")
        if k:
            out.update(kernel_ms=k["median"], cpu_ms=(self.timings.get("reference_ms") or {}).get("median"),
                       **rates(self.timings))
        return out

    def render(self) -> str:
        verdict = "ACCEPTED" if self.accepted else f"REJECTED at {self.rung}: {self.reason}"
        seed = f"{self.seed} ({'given' if self.seed_given else 'secret, replay with --seed'})"
        lines = [f"{self.kernel}: {self.candidate} on {self.backend}, dataset {self.dataset}, seed {seed}",
                 f"verdict: {verdict}"]
        for r in self.rungs:
            state = "skipped" if r["skipped"] else ("ok" if r["ok"] else "FAILED")
            note = r["reason"] or _note(r)
            lines.append(f"  {r['name']:7} {state:8} {r['seconds']:7.2f} s  {note}".rstrip())
        if self.max_error is not None:
            lines.append(f"max error: {self.max_error:.3g} of the bound ({self.tolerance['rtol']})")
        if self.suite.get("full_step"):
            lines.append(f"full: {self.suite['full']}")
        if self.feedback:
            lines.append(f"feedback: {self.feedback}")
        return "\n".join(lines)


def _note(r: dict) -> str:
    d = r.get("detail") or {}
    if r["name"] == "gate" and "killed" in d:
        return f"{d['killed']}/{d['total']} mutants rejected" + (
            f" after {d['rounds']} strengthening round(s)" if d.get("rounds") else "") + (
            f"; equivalent to the reference, left out: {', '.join(m.split(' ')[0] for m in d['equivalent'])}"
            if d.get("equivalent") else "")
    if r["name"] == "bench" and "kernel_ms" in d:
        k = d["kernel_ms"]
        sp = d.get("speedup")
        return (f"kernel {k['median']:.4f} ms (p20 {k['p20']:.4f}, p80 {k['p80']:.4f})"
                + (f", {sp:.1f}x the -O3 reference" if sp else ""))
    if r["name"] == "full" and d.get("dataset"):
        return f"{d['dataset']} {d.get('sizes')}" + (f"; {d['step']}" if d.get("step") else "")
    if r["name"] == "races" and d.get("race_check"):      # gpu: which check ran (racecheck.py)
        return d["race_check"][:100]
    if r["name"] == "races" and d.get("emu_seeds"):
        return f"emu seeds {d['emu_seeds']}"
    return r.get("feedback", "")[:100] if r["skipped"] else ""


def _plain(x):
    """numpy scalars and paths in JSON."""
    if hasattr(x, "item"):
        return x.item()
    return str(x)


@dataclass
class Timing:
    """The bench rung's result on its own (`ladder.bench`)."""
    kernel: str
    ok: bool
    detail: dict = field(default_factory=dict)
    reason: str = ""

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(asdict(self), indent=indent, default=_plain)

    def summary(self) -> str:
        if not self.ok:
            return f"bench failed: {self.reason}"
        k = self.detail["kernel_ms"]
        return f"kernel {k['median']:.4f} ms (p20 {k['p20']:.4f}, p80 {k['p80']:.4f})"

    def figures(self) -> dict:
        if not self.ok:
            return {}
        return {"kernel_ms": self.detail["kernel_ms"]["median"], "kernel_p20_ms": self.detail["kernel_ms"]["p20"],
                "kernel_p80_ms": self.detail["kernel_ms"]["p80"], "e2e_ms": self.detail.get("e2e_ms"),
                "cpu_ms": (self.detail.get("reference_ms") or {}).get("median"), **rates(self.detail)}


class Judged:
    """A candidate that carries the ladder's `evidence` (an Evidence, or None before it ran):
    whether it passed, and its bench median.  The two evolutions' steps are both."""
    evidence: object

    @property
    def accepted(self) -> bool:
        return bool(self.evidence and self.evidence.accepted)

    @property
    def kernel_ms(self) -> float | None:
        return ((self.evidence.timings if self.evidence else {}).get("kernel_ms") or {}).get("median")


#: An evolution stops timing a candidate whose first repetitions (harness.EARLY_REPS) all take
#: longer than this many times the best accepted candidate's median: it cannot win.
SLOW = 1.5


def slower_than(steps) -> float | None:
    """The bar (ms) for the next candidate's bench (ladder `slower_than`): `SLOW` times the
    fastest accepted median among `steps` (Judged), or None before one was timed."""
    times = [s.kernel_ms for s in steps if s.accepted and s.kernel_ms]
    return SLOW * min(times) if times else None


def rates(timing: dict) -> dict:
    """GB/s and TF/s of the median kernel time on the kernel's exact flop and compulsory byte
    counts (analysis.cost: each element read or written once), where the bench rung has them,
    and the roofline fraction against this GPU's measured ceilings (runtime/ceilings.py);
    `counts_bounded` where the counts are bounds (reads through data, analysis.cost)."""
    ms = (timing.get("kernel_ms") or {}).get("median")
    if not ms or timing.get("flops") is None:
        return {}
    out = {"gbps": timing["bytes"] / (ms * 1e-3) / 1e9, "tflops": timing["flops"] / (ms * 1e-3) / 1e12,
           "roofline_pct": timing.get("roofline_pct")}
    return out | ({"counts_bounded": True} if timing.get("counts_bounded") else {})
