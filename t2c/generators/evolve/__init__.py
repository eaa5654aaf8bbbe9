"""Feedback-adaptive evolution of a poly candidate over its options (issue #7).

    evolve(kernel, check, budget=Budget(), key=None, cache_dir=None) -> Evolution
    search(kernel, *, backend, dataset, seed, budget, ...);  options_of(record)

Takes a kernel and `check(source) -> Evidence` (the ladder, the bench rung included on a GPU);
gives the `Evolution`: the best candidate and its lineage. Round 0 is the default; each round
tries the best candidate's untried neighbours (moves.py), those for its measured limit first;
identical sources are checked once; a clearly slow candidate stops timing early; the budget
stops the search, and on emu the first accepted candidate ends it. The winner's options are
cached by IS key, GPU and t2c version and checked again. Options change only speed, so the
search cannot make a candidate wrong. docs/poly.md, "Evolution".
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...verify.evidence import Judged, slower_than
from ..poly import DEFAULT, PolyOptions, generate
from ..poly.options import OptionsError, changes
from .moves import limit, neighbours


@dataclass(frozen=True)
class Budget:
    candidates: int = 12
    seconds: float = 900.0


@dataclass
class Step(Judged):
    step: int
    parent: int | None
    move: str
    options: PolyOptions
    source: str
    evidence: object = None          # verify.evidence.Evidence

    def rank(self) -> tuple:
        """Accepted first, then faster, then earlier."""
        return (self.accepted, -(self.kernel_ms or float("inf")), -self.step)

    def record(self) -> dict:
        ev = self.evidence
        return {"step": self.step, "parent": self.parent, "move": self.move, "options": changes(self.options),
                "source_sha256": hashlib.sha256(self.source.encode()).hexdigest(),
                "status": "accepted" if self.accepted else f"rejected at {ev.rung}: {ev.reason}",
                "kernel_ms": self.kernel_ms, "limit": limit(ev) if self.accepted else None,
                **({"timing": ev.timings["stopped_early"]} if "stopped_early" in (ev.timings or {}) else {})}


@dataclass
class Evolution:
    best: Step | None
    lineage: list[Step] = field(default_factory=list)
    duplicates: int = 0              # neighbours whose source was already checked
    stopped: str = ""                # why the search ended
    cached: bool = False

    @property
    def source(self) -> str | None:
        return self.best.source if self.best else None

    def summary(self) -> dict:
        return {"best": self.best.record() if self.best else None, "stopped": self.stopped,
                "cached": self.cached, "duplicates": self.duplicates,
                "lineage": [s.record() for s in self.lineage]}


def evolve(kernel, check, budget: Budget = Budget(), key: str | None = None,
           cache_dir: Path | None = None) -> Evolution:
    """Search the options of `kernel`'s poly candidate; `check(source)` is the ladder."""
    start = time.monotonic()
    path = Path(cache_dir) / f"{key}.json" if cache_dir and key else None
    seen: dict[str, Step] = {}
    out = Evolution(None)

    def try_(options: PolyOptions, parent: int | None, move: str) -> Step | None:
        source = generate(kernel, options)
        sha = hashlib.sha256(source.encode()).hexdigest()
        if sha in seen:
            out.duplicates += 1
            return None
        step = Step(len(out.lineage), parent, move, options, source)
        step.evidence = check(source, slower_than=slower_than(out.lineage))
        seen[sha] = step
        out.lineage.append(step)
        if out.best is None or step.rank() > out.best.rank():
            out.best = step
        return step

    cached = _load(path)
    if cached is not None:
        step = try_(cached, None, "cached winner")
        if step and step.accepted:
            out.cached, out.stopped = True, "the cached winner passed the ladder again"
            return out
    try_(DEFAULT, None, "default")
    tried = {DEFAULT} | ({cached} if cached else set())
    while not out.stopped:
        best = out.best
        if best.accepted and best.kernel_ms is None:
            out.stopped = "accepted; no speed numbers on this backend (evolution limited to correctness)"
            break
        frontier = [(m, o) for m, o in neighbours(best.options, best.evidence) if o not in tried]
        if not frontier:
            out.stopped = "every neighbour of the best candidate tried"
        for move, options in frontier:
            if len(out.lineage) >= budget.candidates:
                out.stopped = f"candidate budget ({budget.candidates}) spent"
            elif time.monotonic() - start >= budget.seconds:
                out.stopped = f"time budget ({budget.seconds:.0f} s) spent"
            if out.stopped:
                break
            tried.add(options)
            try_(options, best.step, move)
            if out.best is not best:
                break                    # a better candidate: search around it next
    if out.best and out.best.accepted and path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(changes(out.best.options)))
    return out


def search(kernel, *, backend: str, dataset: str, seed: int, budget: Budget, timeout: float | None = None,
           device=None, timed_device=None) -> Evolution:
    """`evolve` with the ladder as its check (`t2c gen --evolve`, `t2c batch --evolve`): on `backend`
    at `dataset`, the search's own test data from `seed` (never the seed that judges the winner),
    one suite for every candidate, `device` entered around each candidate's device runs (the
    batch's GPU slot) and `timed_device` around its timed run (the whole GPU); the winner
    cached per IS + GPU + t2c version under the cache folder."""
    from contextlib import nullcontext
    from ... import __version__, config
    from ...runtime.gpu import fingerprint
    from ...verify.ladder import ladder
    check = lambda source, slower_than=None: ladder(
        kernel, f"{kernel.name}.cu", source=source, backend=backend, dataset=dataset, seed=seed,
        timeout=timeout, reuse_suite=True, device=device or nullcontext,
        timed_device=timed_device, slower_than=slower_than)
    key = cache_key(kernel, fingerprint() if backend == "gpu" else "emu", __version__)
    return evolve(kernel, check, budget, key=key, cache_dir=config.load().cache_dir / "evolve")


def _load(path: Path | None) -> PolyOptions | None:
    """A cached winner's options (dotted paths, or the flat names of older versions)."""
    if path is None or not path.exists():
        return None
    try:
        return PolyOptions.load(json.loads(path.read_text()), str(path))
    except (ValueError, OptionsError):
        return None                      # an unreadable or outdated entry: search again


def options_of(record: dict, source: str = "lineage") -> PolyOptions:
    """The options of a stored lineage step (`Step.record()`, in `OUT.evolve.json` or a batch's
    `evolve.json`), also from versions that wrote the flat option names; an OptionsError
    names `source` and the option it cannot read."""
    return PolyOptions.load(record.get("options") or {}, f"{source}: step {record.get('step')}")


def cache_key(kernel, gpu: str, version: str) -> str:
    """The IS key + the GPU (`runtime.gpu.fingerprint()`) + the t2c version: a winner holds for that triple."""
    text = json.dumps([kernel.key(), gpu, version])
    return hashlib.sha256(text.encode()).hexdigest()[:24]
