"""Performance changes between two runs, called only when the ratio and a test agree.

    compare_runs(base_rows, new_rows, threshold, confidence=0.99) -> [Change];  load_rows(path)
    gate(base, rows, threshold, meta=None) -> (changes, exit code)

Takes two runs' rows (a report folder, a results.json, a history .jsonl or folder); pairs them by
(kernel, generator) within one dataset where both measured a kernel time; gives a `Change` each:
`regression` when new/base >= 1 + threshold and a one-sided Mann-Whitney U test on the
repetitions agrees at `confidence`, `improvement` the mirror, `noise` when only the ratio says
so (or a side has no repetitions), `same` otherwise. Exit 3 (`EXIT_REGRESSION`) means a
performance regression only; no earlier run of the machine (`NoBaseline`) gates nothing.
docs/reports.md, "Regressions".
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import EXIT_REGRESSION, UserError
from .basic import Row, read_json
from .history import latest_rows, load
from .stats import mann_whitney_greater, median

DEFAULT_CONFIDENCE = 0.99


class NoBaseline(UserError):
    """A history without an earlier run of this machine: the first night has nothing to compare."""


@dataclass(frozen=True)
class Change:
    kernel: str
    generator: str
    kind: str                 # regression | improvement | noise | same
    base_ms: float
    new_ms: float
    ratio: float              # new / base: above 1 is slower
    p_value: float | None     # of the one-sided test in the ratio's direction; None: no samples
    n_base: int = 0
    n_new: int = 0

    @property
    def confidence(self) -> float | None:
        return None if self.p_value is None else 1.0 - self.p_value

    @property
    def confidence_text(self) -> str:
        if self.p_value is None:
            return "untested (no repetitions)"
        return ">99.99%" if self.p_value < 1e-4 else f"{100 * (1 - self.p_value):.2f}%"

    def describe(self) -> str:
        conf = self.confidence_text if self.p_value is None else \
            f"confidence {self.confidence_text} (p={self.p_value:.2g}, n={self.n_base}/{self.n_new})"
        return (f"{self.kind:11} {self.kernel} [{self.generator}] {self.base_ms:.4g} -> {self.new_ms:.4g} ms "
                f"({(self.ratio - 1) * 100:+.1f}%), {conf}")


def parse_threshold(text: str | float) -> float:
    """'5%', '5' or '0.05' -> 0.05 (a bare number above 1 is read as percent)."""
    try:
        s = str(text).strip()
        v = float(s[:-1]) / 100 if s.endswith("%") else float(s)
        v = v / 100 if v >= 1 and not s.endswith("%") else v
        if not 0 < v < 10:
            raise ValueError
    except ValueError:
        raise UserError(f"threshold '{text}' is not a percentage", hint="e.g. 5% or 0.05") from None
    return v


def compare_runs(base_rows, new_rows, threshold: float = 0.05,
                 confidence: float = DEFAULT_CONFIDENCE) -> list[Change]:
    alpha = 1.0 - confidence
    base = {(r.kernel, r.generator): r for r in map(_row, base_rows)}
    changes = []
    for n in map(_row, new_rows):
        b = base.get((n.kernel, n.generator))
        if b is None or (b.dataset and n.dataset and b.dataset != n.dataset):
            continue
        b_ms, n_ms = _time(b), _time(n)
        if not b_ms or not n_ms:
            continue
        ratio = n_ms / b_ms
        slower, faster = ratio >= 1 + threshold, 1 / ratio >= 1 + threshold
        p = None
        if b.samples_ms and n.samples_ms:
            p = mann_whitney_greater(n.samples_ms, b.samples_ms) if ratio >= 1 else \
                mann_whitney_greater(b.samples_ms, n.samples_ms)
        if not (slower or faster):
            kind = "same"
        elif p is not None and p < alpha:
            kind = "regression" if slower else "improvement"
        else:
            kind = "noise"
        changes.append(Change(n.kernel, n.generator, kind, b_ms, n_ms, ratio, p,
                              len(b.samples_ms), len(n.samples_ms)))
    order = {"regression": 0, "improvement": 1, "noise": 2, "same": 3}
    return sorted(changes, key=lambda c: (order[c.kind], -abs(c.ratio - 1)))


def regressions(changes: list[Change]) -> list[Change]:
    return [c for c in changes if c.kind == "regression"]


def exit_code(changes: list[Change]) -> int:
    return EXIT_REGRESSION if regressions(changes) else 0


def _row(r) -> Row:
    return r if isinstance(r, Row) else Row.from_dict(r)


def _time(r: Row) -> float | None:
    """The median of the repetitions when present (what the test compares), else kernel_ms."""
    return median(r.samples_ms) if r.samples_ms else r.kernel_ms


def load_rows(path: str | Path, like: dict | None = None) -> tuple[list[Row], dict]:
    """Rows and meta of a report folder, a results.json, a history .jsonl or a history folder.

    From a history, `like` (the meta of the run being judged) picks the machine's file
    in a folder, keeps the runs that finished before it (its own line was appended when
    it was written) with its dataset and backend; each kernel x generator then comes from the
    latest run that holds it."""
    p = Path(path)
    like = like or {}
    if p.is_dir() and not (p / "results.json").exists() and any(p.glob("*.jsonl")):
        slug = (like.get("environment") or {}).get("slug")
        if not slug or not (p / f"{slug}.jsonl").exists():
            raise NoBaseline(f"{path}: no history of this machine ({slug or 'unknown fingerprint'})",
                            hint=f"give one of {', '.join(sorted(f.name for f in p.glob('*.jsonl')))}")
        p = p / f"{slug}.jsonl"
    elif p.is_dir():
        p = p / "results.json"
    if not p.exists():
        raise UserError(f"no report at {path}", hint="give a report folder, its results.json, "
                        "or a history .jsonl")
    if p.suffix == ".jsonl":
        s, before = like.get("settings") or {}, str(like.get("finished") or "~")
        # runs before NEW (NEW's own line has its time; names repeat with --report-dir nightly)
        recs = [r for r in load(p) if str(r.get("time", "")) < before
                and all(r.get(k) == s[k] for k in ("dataset", "backend") if s.get(k))]
        if not recs:
            raise NoBaseline(f"{path}: the history holds no earlier run of this machine, dataset and backend")
        return latest_rows(recs), {"run": recs[-1].get("run", ""), "environment": recs[-1].get("environment")}
    try:
        return read_json(p)
    except (json.JSONDecodeError, TypeError, AttributeError) as e:
        raise UserError(f"{p}: not a t2c results.json ({e})") from None


def gate(baseline: str | Path, new_rows, threshold: float | str = 0.05,
         confidence: float = DEFAULT_CONFIDENCE, meta: dict | None = None) -> tuple[list[Change], int]:
    """For `t2c batch --baseline BASE --fail-on-regression 5%`: the changes and 0 or 3.

    `meta` is the new run's (with `environment`, `run`, `settings`) when BASE is a history."""
    try:
        base_rows, _ = load_rows(baseline, like=meta)
    except NoBaseline:
        return [], 0                       # the first run on a machine gates nothing
    changes = compare_runs(base_rows, new_rows, parse_threshold(threshold), confidence)
    return changes, exit_code(changes)
