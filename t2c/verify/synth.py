"""The test suite of one verification run: size points x distributions, with expected outputs.

    build_suite(kernel, seed, dataset=..., backend=...) -> Suite;  replay_suite(kernel, summary)
    new_seed(), strengthen(suite, round), probes(suite)

Takes the kernel and the run's secret seed (every draw derives from it and its labels, so a
failure replays from the seed alone; no generator sees it); gives smoke, random and full cases
with their inputs and the reference's outputs, kept in this process (`Suite.summary()` holds only
sizes and seeds). A draw is discarded, with its reason, when the reference fails, gives NaN/inf
or is ill-conditioned (a legitimate re-evaluation moves it past 1/`CONDITION_MARGIN` of the
tolerance); a checked reference's fault on declared domains is the spec's `ReferenceFault`.
docs/verification.md, "Inputs: synthesized from a secret seed".
"""
from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .. import config
from ..errors import UserError
from ..ir import DATASETS, FLOAT_DTYPES, Kernel
from ..ir.kernel import eval_extent
from .compare import Comparison, blocks, compare
from .halfs import finite
from .inputs import distributions, synthesize
from .reference import ReferenceFailed, check_constraints, np_dtype, original_inputs, run_reference

#: A draw is kept only when legitimate re-evaluations stay below bound / CONDITION_MARGIN.
CONDITION_MARGIN = 8.0
#: Draws tried per (point, distribution) before moving on.
TRIES = 4
#: Draws at the full rung's dataset, where one reference run can take many seconds: when
#: they are all ill-conditioned the problem is, not the draw (gramschmidt at every preset).
FULL_DRAWS = 3
#: Sizes of the random points: odd, mostly prime, none a multiple of 32 or 128.
PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43)
AROUND_WARP = (31, 33, 35, 37)
EVENS = (6, 10, 14, 22, 26, 34, 38)          # twice an odd prime: a loop that halves, pairs or swaps
                                            # buffers each step ends otherwise on an even count
LONG = (129, 131, 133)
#: The probes' wider point (`probes`) may cost this many random points' reference budget.
#: Budgets count the checked reference's loop iterations (`ReferenceRun.work`), not its seconds:
#: a seed then draws the same suite on any machine under any load.
WIDE_BUDGET = 100
#: Reference build with contraction: what nvcc does to a*b+c by default.
FMA_FLAGS = ("-O2", "-std=c99", "-ffp-contract=fast", "-march=native")


def sizing() -> tuple:
    """The settings that size a drawn suite (random points, loop-iteration budgets): part of a
    cached suite's key, so that changing one draws the suite again."""
    cfg = config.load()
    return cfg.verify_points, cfg.verify_point_work, cfg.verify_emu_work


def new_seed() -> int:
    """A fresh secret seed for one verification run."""
    return secrets.randbits(63)


def derive(seed: int, *labels) -> int:
    """A stable 63-bit seed for one draw, from the run's seed and the draw's labels."""
    h = hashlib.sha256(repr((int(seed), labels)).encode()).digest()
    return int.from_bytes(h[:8], "little") >> 1


@dataclass(frozen=True)
class Case:
    rung: str                         # smoke | random | full | extra (gate), probe (never in a suite)
    point: str                        # size point label: ones, primes, long:nk, MINI ...
    sizes: dict
    distribution: str                 # one of inputs.DISTRIBUTIONS or "original"
    seed: int                         # seed of this draw (0 for original)
    inputs: dict = field(repr=False)
    expected: dict | None = field(repr=False)   # None: values not comparable (see full rung)
    ref_seconds: float = 0.0
    sensitivity: float = 0.0          # worst legitimate re-evaluation error / bound
    work: int = 0                     # the checked reference's loop iterations (the cost budgets')

    def label(self) -> str:
        return f"{self.point} {self.distribution} {self.sizes}"

    def summary(self) -> dict:
        return {"rung": self.rung, "point": self.point, "sizes": dict(self.sizes),
                "distribution": self.distribution, "seed": self.seed,
                "sensitivity": round(self.sensitivity, 4), "ref_seconds": round(self.ref_seconds, 4),
                "work": self.work}


class Pending(Mapping):
    """A replayed case's expected outputs while the reference still computes them (a Future):
    the candidate runs on the inputs meanwhile, and reading an output waits for them."""

    def __init__(self, future):
        self.future = future

    def __getitem__(self, name):
        return self.future.result()[name]

    def __iter__(self):
        return iter(self.future.result())

    def __len__(self):
        return len(self.future.result())


@dataclass
class Suite:
    kernel: Kernel
    seed: int
    cases: list[Case] = field(default_factory=list)
    discarded: list[dict] = field(default_factory=list)
    full_dataset: str | None = None
    full_note: str = ""
    full_step: dict | None = None      # FullDataset.summary() when the emu verified at a smaller dataset

    @property
    def full_step_line(self) -> str:
        """A few words for one-line summaries where the full rung ran at a smaller dataset, else ""."""
        return FullDataset.line_of(self.full_step)

    def of(self, rung: str) -> list[Case]:
        return [c for c in self.cases if c.rung == rung]

    def summary(self) -> dict:
        return {"seed": self.seed, "cases": [c.summary() for c in self.cases],
                "discarded": self.discarded, "full_dataset": self.full_dataset,
                "full_note": self.full_note, "full_step": self.full_step}


# -- size points ---------------------------------------------------------------------------

def _valid(k: Kernel, sizes: dict) -> bool:
    try:
        check_constraints(k, sizes)
        return True
    except UserError:
        return False


def _lift(k: Kernel, sizes: dict) -> dict | None:
    """Sizes raised as little as needed to meet the constraints (None if hopeless): a size that a
    constraint `s >= E` bounds by others (a leading dimension, `lda >= m`) to E where it is below,
    one that `(s - E) % T == 0` asks whole tiles of to the next such value past E, then every
    size alike."""
    sizes = dict(sizes)
    for c in k.constraints:
        if (m := re.fullmatch(r"\s*(\w+)\s*>=\s*([^<>=!&|?]+)", c)) and m.group(1) in sizes:
            try:
                sizes[m.group(1)] = max(sizes[m.group(1)], eval_extent(m.group(2), sizes))
            except UserError:
                pass
    for c in k.constraints:        # `(n % 16) == 0`, `((n - 1) % 16) == 0`: whole tiles, n rounded up
        if (m := re.fullmatch(r"\s*\(*\s*(\w+)\s*(?:-\s*([^%()]+?))?\s*\)?\s*%\s*(\d+)\s*\)?\s*==\s*0\s*", c)) \
                and m.group(1) in sizes and int(m.group(3)) > 0:
            try:
                low = eval_extent(m.group(2), sizes) if m.group(2) else 0
            except UserError:
                continue
            t = int(m.group(3))
            sizes[m.group(1)] = low + max(1, -(-(sizes[m.group(1)] - low) // t)) * t
    for extra in range(0, 16):
        cand = {n: v + extra for n, v in sizes.items()}
        if _valid(k, cand):
            return cand
    return None


def smoke_points(k: Kernel) -> list[tuple[str, dict]]:
    names = [s.name for s in k.sizes]
    raw = [("ones", {n: 1 for n in names}), ("twos", {n: 2 for n in names}),
           ("threes", {n: 3 for n in names}),
           ("mixed", {n: (2, 3, 1)[i % 3] for i, n in enumerate(names)})]
    out, seen = [], set()
    for label, sizes in raw:
        sizes = _lift(k, sizes)
        if sizes is not None and tuple(sizes.values()) not in seen:
            seen.add(tuple(sizes.values()))
            out.append((label, sizes))
    return out


def random_points(k: Kernel, seed: int, count: int, tag: str = "",
                  kinds: tuple[str, ...] = ("primes", "warp", "long", "evens")) -> list[tuple[str, dict]]:
    """Odd/prime sizes, sizes around the warp width, one long dimension past 128, even sizes
    (a ping-pong pair of buffers copied back after an even count of steps differs there alone),
    ... (`kinds`, in turn); a kernel with no sizes (every extent a literal) gets `count` points of
    no sizes, each with its own data."""
    rng = np.random.default_rng(derive(seed, "points", tag))
    names = [s.name for s in k.sizes]
    out = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        if kind == "long" and names:
            longest = names[int(rng.integers(len(names)))]
            sizes = {n: int(rng.choice(LONG)) if n == longest else int(rng.choice(PRIMES[:6]))
                     for n in names}
            label = f"long:{longest}"
        else:
            palette = {"primes": PRIMES, "evens": EVENS}.get(kind, AROUND_WARP)
            sizes = {n: int(rng.choice(palette)) for n in names}
            label = kind
        lifted = _lift(k, sizes)
        if lifted is not None:
            out.append((f"{label}#{i}{tag}", lifted))
    return out


def _shrink(sizes: dict) -> dict:
    """Roughly halve every size above 3, keeping it odd (for the cost budget)."""
    return {n: (max(3, v // 2) | 1) if v > 3 else v for n, v in sizes.items()}


# -- drawing one case ----------------------------------------------------------------------

def _finite(k: Kernel, outputs: dict) -> bool:
    return all(finite(outputs[x.name], x.dtype) for x in k.outputs if x.dtype in FLOAT_DTYPES)


def _perturbed(k: Kernel, inputs: dict, seed: int) -> dict:
    """Real inputs moved by up to 4 ulps: what a different rounding upstream would do.  An ulp of
    the input's type or of the finest floating-point output's, whichever is finer: a double result
    of float inputs (a dot product accumulated in double) is held to double's tolerance, and a
    float ulp of input would be a million times that tolerance on any draw."""
    rng = np.random.default_rng(seed)
    finest = min((np.finfo(np_dtype(x.dtype)).eps for x in k.outputs if x.dtype in FLOAT_DTYPES
                  and np_dtype(x.dtype).itemsize > 2), default=1.0)
    out = {}
    for name, v in inputs.items():
        v = np.asarray(v)
        if v.dtype.kind == "f" and v.dtype.itemsize > 2:   # 16-bit inputs: exact, the candidate's own
            eps = min(np.finfo(v.dtype).eps, finest)
            # v * (1 + 4 eps u) in float64, rounded to v's type, block by block: the same
            # values as over the whole array at once (the generator's stream is sequential)
            moved = np.empty(v.shape, v.dtype)
            src, dst = v.reshape(-1), moved.reshape(-1)
            for _, b in blocks(src.size):
                u = rng.uniform(-1, 1, size=src[b].size)
                u *= 4 * eps
                u += 1
                u *= src[b]
                dst[b] = u
            v = moved
        out[name] = v if v.shape else v[()]
    return out


def sensitivity(k: Kernel, sizes: dict, expected: dict, reevaluations: list) -> float:
    """Worst error / bound of legitimate re-evaluations of the reference (futures from
    `_reevaluations`; none for integer outputs: 0)."""
    worst = 0.0
    for future in reevaluations:
        try:
            got = future.result().outputs
        except ReferenceFailed:
            return float("inf")
        c: Comparison = compare(k, expected, got, sizes)
        if any(a.problem or a.nonfinite for a in c.arrays):
            return float("inf")
        worst = max(worst, c.max_ratio)
    return worst


def _reevaluations(pool, k: Kernel, sizes: dict, inputs: dict, seed: int) -> list:
    """The reference built with FMA contraction, and on inputs moved by a few ulps: futures
    (processes: at LARGE each takes seconds); none when no output is floating-point."""
    if not any(x.dtype in FLOAT_DTYPES for x in k.outputs):
        return []
    return [pool.submit(run_reference, k, sizes, inputs, flags=FMA_FLAGS),
            pool.submit(run_reference, k, sizes, _perturbed(k, inputs, seed))]


def _attempt(k: Kernel, seed: int, rung: str, point: str, sizes: dict, distribution: str,
             attempt: int, budget: int | None) -> tuple[Case | None, dict | None, object]:
    """One draw: (the case, None, its run), or (None, its discard note, its run if it ran).  A
    draw's reference run and its two re-evaluations start together when there is no cost budget
    (the full rung: at LARGE each takes seconds, at EXTRALARGE minutes); an `original` draw's
    re-evaluations take the init's inputs from a run of the init alone, and run again on the
    checked run's own inputs if those differ (an init that draws anew each run).  A case over
    the budget (loop iterations) has sensitivity NaN (the caller shrinks the sizes)."""
    s = 0 if distribution == "original" else derive(seed, rung, point, distribution, attempt)
    note = lambda why, run=None: (None, {"rung": rung, "point": point, "sizes": dict(sizes),
                                         "distribution": distribution, "seed": s, "why": why}, run)
    with ThreadPoolExecutor(3) as pool:
        early = []
        try:
            if distribution == "original":
                if budget is None and any(x.dtype in FLOAT_DTYPES for x in k.outputs):
                    try:
                        init = original_inputs(k, sizes)
                        early = _reevaluations(pool, k, sizes, init, s)
                    except ReferenceFailed:
                        pass                # the checked run says what is wrong with the init
                run = run_reference(k, sizes, None, checked_run=True)
                if early and not _same(init, run.inputs):
                    early = []
            else:
                inputs = synthesize(k, sizes, s, distribution)
                if budget is None:
                    early = _reevaluations(pool, k, sizes, inputs, s)
                run = run_reference(k, sizes, inputs, checked_run=True)
        except ReferenceFailed as e:
            return note(f"reference failed: {e}")
        if not _finite(k, run.outputs):
            return note("reference gives NaN/inf", run)
        if budget is not None and run.work > budget:
            return Case(rung, point, sizes, distribution, s, run.inputs, run.outputs,
                        run.seconds, float("nan"), run.work), None, run
        sens = sensitivity(k, sizes, run.outputs, early or _reevaluations(pool, k, sizes, run.inputs, s))
    if sens <= 1.0 / CONDITION_MARGIN:
        return Case(rung, point, sizes, distribution, s, run.inputs, run.outputs, run.seconds, sens,
                    run.work), None, run
    return note("ill-conditioned: a legitimate re-evaluation of the reference differs by "
                f"{sens:.2g} x the tolerance", run)


def _same(a: dict, b: dict) -> bool:
    """The same inputs, bit for bit."""
    return a.keys() == b.keys() and all(np.asarray(a[n]).tobytes() == np.asarray(b[n]).tobytes() for n in a)


def draw_case(k: Kernel, seed: int, rung: str, point: str, sizes: dict, distribution: str,
              discarded: list, tries: int = TRIES, budget: int | None = None) -> Case | None:
    """The first usable draw of (point, distribution), or None (with the discards noted)."""
    for attempt in range(1 if distribution == "original" else tries):
        case, discard, _ = _attempt(k, seed, rung, point, sizes, distribution, attempt, budget)
        if case is not None:
            return case
        discarded.append(discard)
    return None


def _full_cases(k: Kernel, seed: int, name: str, sizes: dict, order: list, discarded: list):
    """(cases, original): up to two cases at the full rung's dataset within FULL_DRAWS draws,
    each distribution of `order` twice at most, and the `original` draw's reference run when
    it was discarded for its conditioning (build_suite's unchecked fallback takes its inputs).
    With an `original` first, the next distribution's first draw is always tried too (a second
    full case is wanted either way), so the two run at once; the cases and discards are those
    of drawing one at a time."""
    cases, draws, original = [], 0, None
    with ThreadPoolExecutor(2) as pool:
        ahead = {}
        if order[:1] == ["original"] and len(order) > 1:
            ahead[order[1]] = pool.submit(_attempt, k, seed, "full", name, sizes, order[1], 0, None)
        for d in order:
            for attempt in range(1 if d == "original" else min(2, FULL_DRAWS - draws)):
                got = ahead.pop(d).result() if attempt == 0 and d in ahead else \
                    _attempt(k, seed, "full", name, sizes, d, attempt, None)
                draws += 1
                if got[0] is not None:
                    cases.append(got[0])
                    break
                discarded.append(got[1])
                original = got[2] if d == "original" else original
            if len(cases) >= 2 or draws >= FULL_DRAWS:
                break
    return cases, original


def replay_case(k: Kernel, summary: dict, pool=None) -> Case:
    """The case a suite drew, from its summary (`Case.summary()`: sizes, distribution, the draw's
    seed): the same inputs and, from one reference run, the same expected outputs, without the
    draws before it or the conditioning runs (the suite that drew it checked those).  With a
    `pool` the inputs come at once (drawn, or the original init alone) and the outputs later
    (`Pending`), so the candidate can run while the reference does."""
    sizes, dist, s = dict(summary["sizes"]), summary["distribution"], int(summary["seed"])
    sens = float(summary.get("sensitivity", 0.0))
    inputs = original_inputs(k, sizes) if dist == "original" else synthesize(k, sizes, s, dist)
    expected = None              # the unchecked fallback (build_suite): outputs written, values not compared
    if sens != float("inf"):
        expected = Pending(pool.submit(_expected, k, sizes, inputs)) if pool else _expected(k, sizes, inputs)
    return Case(summary["rung"], summary["point"], sizes, dist, s, inputs, expected,
                float(summary.get("ref_seconds", 0.0)), sens, int(summary.get("work", 0)))


def _expected(k: Kernel, sizes: dict, inputs: dict) -> dict:
    run = run_reference(k, sizes, inputs)
    if not _finite(k, run.outputs):
        raise ReferenceFailed(f"{k.name}: the replayed draw at {sizes} gives NaN/inf")
    return run.outputs


def replay_suite(k: Kernel, summary: dict, rungs: tuple[str, ...] | None = None) -> Suite:
    """The suite a `build_suite` (+ gate) drew, from its summary (`Suite.summary()`): the same
    cases in the same order, without the discarded draws, the conditioning runs or the mutants
    (the suite that drew them checked those).  `rungs`: only the cases of these.  The batch's
    suite stage keeps the summary (no inputs or outputs on disk); its verify and bench stages
    replay it: the inputs now, each case's expected outputs from a reference run in the
    background (four at once, the biggest first) while the candidate runs."""
    wanted = [c for c in summary["cases"] if rungs is None or c["rung"] in rungs]
    order = sorted(range(len(wanted)), key=lambda i: -np.prod([max(1, v) for v in wanted[i]["sizes"].values()]))
    pool = ThreadPoolExecutor(4, thread_name_prefix="t2c-reference")
    try:
        done = {i: replay_case(k, wanted[i], pool) for i in order}
    finally:
        pool.shutdown(wait=False)            # the references go on; a Pending waits for its own
    return Suite(k, int(summary["seed"]), [done[i] for i in range(len(wanted))], list(summary["discarded"]),
                 summary["full_dataset"], summary["full_note"], summary.get("full_step"))


def _point_cases(k, seed, rung, point, sizes, dists, discarded, budget, want) -> list[Case]:
    """Up to `want` cases at one size point, trying `dists` in order, within the budget."""
    cases = []
    for _ in range(5):                          # shrink steps for the cost budget
        cases = []
        over = False
        for d in dists:
            c = draw_case(k, seed, rung, point, sizes, d, discarded, budget=budget)
            if c is not None and c.sensitivity != c.sensitivity:     # NaN: over budget
                over = True
                break
            if c is not None:
                cases.append(c)
            if len(cases) >= want:
                break
        if not over:
            return cases
        smaller = _lift(k, _shrink(sizes))
        if not smaller or smaller == sizes:
            break
        sizes = smaller
    return cases


@dataclass(frozen=True)
class FullDataset:
    """The full rung's dataset, decided before any case is drawn: the target, or on the emu the
    largest preset up to it whose reference run stays within the work budget
    (`T2C_VERIFY_EMU_WORK`, loop iterations of the checked reference). A step down is a smaller
    check than asked for, so it is spelled out wherever the verdict is: what ran, what the target
    would need, and the setting that allows it."""
    target: str
    ran: str | None                 # None: the kernel has no presets
    budget: int | None = None       # the emu work budget it was decided under (None off the emu)
    past: str | None = None         # the first preset past the budget (the target, or one before it)
    needs: int | None = None        # its reference's loop iterations
    failed: str = ""                # why the reference could not run at the preset after `ran`, if that stopped it

    @property
    def stepped_down(self) -> bool:
        return self.ran is not None and self.ran != self.target

    def needs_text(self) -> str:
        """The budget the target needs: exact when the target itself was measured."""
        if self.needs is None:
            return ""
        return f"{self.needs:,}" if self.past == self.target else f"more than {self.needs:,} ({self.past} alone needs that)"

    def note(self) -> str:
        if self.ran is None:
            return "the kernel has no dataset presets; the full rung uses the largest random point"
        if not self.stepped_down:
            return f"target dataset {self.target}"
        if self.failed:
            return (f"verified at {self.ran}, not {self.target}: the reference fails at the next preset "
                    f"({self.failed})")
        return (f"verified at {self.ran}, not {self.target}: the emulator is a correctness tier and "
                f"{self.past}'s reference runs {self.needs:,} loop iterations, past its work budget of "
                f"{self.budget:,}; {self.target} needs a budget of {self.needs_text()}: set "
                f"T2C_VERIFY_EMU_WORK={self.needs if self.past == self.target else 'N'} or more to verify at {self.target}")

    def summary(self) -> dict:
        return {"target": self.target, "ran": self.ran, "budget": self.budget, "past": self.past,
                "needs": self.needs, "failed": self.failed, "line": self.line()}

    def line(self) -> str:
        """A few words for a batch line and a card's one-line summary ("" when the target ran)."""
        if not self.stepped_down:
            return ""
        if self.failed:
            return f"verified at {self.ran}, not {self.target} (the reference fails past {self.ran})"
        return (f"verified at {self.ran}, not {self.target} ({self.target} needs an emu work budget of "
                f"{self.needs_text()}; set T2C_VERIFY_EMU_WORK)")

    @staticmethod
    def line_of(summary: dict | None) -> str:
        return (summary or {}).get("line", "")


def full_dataset(k: Kernel, target: str, backend: str) -> FullDataset:
    """The dataset of the full rung (the emu backend may step down: `FullDataset`)."""
    presets = [d for d in DATASETS if all(s.preset(d) is not None for s in k.sizes)]
    if not presets:
        return FullDataset(target, None)
    if target not in presets:
        lacking = [s.name for s in k.sizes if s.preset(target) is None]
        where = dict(file=k.origin.file, line=k.origin.line, col=k.origin.col) if k.origin else {}
        raise UserError(f"{k.name}: no {target} preset: size{'s' if len(lacking) > 1 else ''} "
                        f"{', '.join(lacking)} {'have' if len(lacking) > 1 else 'has'} no {target} value "
                        f"(the presets every size has: {', '.join(presets)})", **where,
                        hint=f"verify at {presets[-1]} (--dataset {presets[-1]}), or give "
                             f"{', '.join(lacking)} a {target} value where the sizes are declared")
    if backend != "emu":
        return FullDataset(target, target)
    budget = config.load().verify_emu_work
    chosen = presets[0]
    for d in presets[: presets.index(target) + 1]:
        try:
            work = run_reference(k, k.dataset_sizes(d), None if k.init else synthesize(k, k.dataset_sizes(d), 0),
                                 timeout=60, checked_run=True).work
        except ReferenceFailed as e:
            return FullDataset(target, chosen, budget, d, None, f"{d}: {str(e)[:160]}")
        if work > budget and d != presets[0]:
            return FullDataset(target, chosen, budget, d, work)
        chosen = d
    return FullDataset(target, chosen, budget)


# -- the suite -----------------------------------------------------------------------------

def build_suite(k: Kernel, seed: int, *, dataset: str = "MINI", backend: str = "emu",
                points: int | None = None) -> Suite:
    cfg = config.load()
    points = cfg.verify_points if points is None else points
    suite = Suite(k, seed)
    dists = list(distributions(k))
    alternatives = dists[1:] + (["original"] if k.init else [])
    # smoke: tiny sizes, domain draws first (then others if the domain gives NaN there)
    for label, sizes in smoke_points(k):
        suite.cases += _point_cases(k, seed, "smoke", label, sizes, dists + alternatives[-1:],
                                    suite.discarded, None, 1)
    # random: each point with the declared domain and one alternative, two calls per point
    for i, (label, sizes) in enumerate(random_points(k, seed, points)):
        alt = alternatives[i % len(alternatives)] if alternatives else "domain"
        order = list(dict.fromkeys(["domain", alt] + dists + alternatives))
        cases = _point_cases(k, seed, "random", label, sizes, order, suite.discarded,
                             cfg.verify_point_work, 2)
        for reorder in ("desc", "asc"):       # e.g. gramschmidt needs m >= n for full rank
            if cases:
                break
            values = sorted(sizes.values(), reverse=reorder == "desc")
            other = _lift(k, dict(zip(sizes, values)))
            if other and other != sizes:
                cases = _point_cases(k, seed, "random", f"{label}:{reorder}", other, order,
                                     suite.discarded, cfg.verify_point_work, 2)
        if len(cases) == 1:    # a second, different draw so that cross-call caching shows
            extra = draw_case(k, seed, "random", label + "'", cases[0].sizes, cases[0].distribution,
                              suite.discarded)
            cases += [extra] if extra else []
        suite.cases += cases
    # full: the target dataset with the original init (when there is one) and a domain draw
    decided = full_dataset(k, dataset, backend)
    name = decided.ran
    suite.full_dataset, suite.full_note = name, decided.note()
    suite.full_step = decided.summary() if decided.stepped_down else None
    if name:
        sizes = k.dataset_sizes(name)
        order = (["original"] if k.init else []) + ["domain"] + dists[1:]
        cases, original = _full_cases(k, seed, name, sizes, order, suite.discarded)
        suite.cases += cases
        if not suite.of("full"):
            # e.g. gramschmidt: every PolyBench dataset has m < n, so any input is rank
            # deficient there; the full rung can still show crashes and unwritten outputs.
            try:
                draw = 0 if k.init else derive(seed, "full")          # the seed replay_case draws with
                run = original or run_reference(k, sizes, None if k.init else synthesize(k, sizes, draw))
                suite.cases.append(Case("full", name, sizes, "original" if k.init else "domain", draw,
                                        run.inputs, None, run.seconds, float("inf")))
                suite.full_note += ("; no well-conditioned draw at this dataset, so the full rung "
                                    "checks that the candidate runs and writes every output, "
                                    "not the values")
            except ReferenceFailed as e:
                suite.full_note += f"; the reference fails at this dataset ({e})"
    return suite


def strengthen(suite: Suite, round_: int) -> list[Case]:
    """More cases for the mutant gate: new random points (odd and even sizes) and fresh draws at the smallest sizes
    the constraints allow (a mutant that moves a loop bound may differ only there: cross_entropy's
    class loop cut to c - 1 matters only when c = 10 and a target is 9), every distribution at each."""
    k = suite.kernel
    dists = list(distributions(k)) + (["original"] if k.init else [])
    added = []
    points = random_points(k, suite.seed, 3, tag=f"+{round_}", kinds=("primes", "warp", "evens"))   # odd and even
    points += [(f"{label}+{round_}", sizes) for label, sizes in smoke_points(k)]
    for label, sizes in points:
        added += _point_cases(k, suite.seed, "extra", label, sizes, dists, suite.discarded,
                              config.load().verify_point_work, len(dists))
    suite.cases += added
    return added


def probes(suite: Suite) -> list[Case]:
    """Cases beyond the suite, to tell a mutant equivalent to the reference from a suite too weak
    to see it (gate.py): random points under another seed, fresh draws at the smallest sizes the
    constraints allow, and wider points (the suite's costliest random point with every size
    doubled again and again while the next one's cost, as for a nest 3 deep, stays within
    `WIDE_BUDGET` point budgets (a deeper one over it shrinks back, as a suite's point does): a
    rounding difference that grows with the work, as a float escape-time loop's does, shows only
    there), every distribution at each.  Drawn and conditioned as the suite's are, but never added to
    it: the suite judges candidates, and a mutant that only these cases kill stays a survivor."""
    k = suite.kernel
    seed = derive(suite.seed, "probes")
    dists = list(distributions(k)) + (["original"] if k.init else [])
    budget = config.load().verify_point_work
    points = random_points(k, seed, 8, tag="~probe")
    points += [(f"{label}~probe", sizes) for label, sizes in smoke_points(k)]
    discarded, out = [], []
    for label, sizes in points:
        out += _point_cases(k, seed, "probe", label, sizes, dists, discarded, budget, len(dists))
    drawn = [c for c in suite.of("random") if c.sizes]
    wide = [max(drawn, key=lambda c: c.work)] if drawn else []
    for _ in range(5):                      # up to 32 times the sizes
        if not wide or 8 * max(c.work for c in wide) > WIDE_BUDGET * budget:
            break
        sizes = _lift(k, {name: 2 * v for name, v in wide[0].sizes.items()})
        wide = _point_cases(k, seed, "probe", "wide~probe", sizes, dists, discarded,
                            WIDE_BUDGET * budget, len(dists)) if sizes else []
        out += wide
    return out

