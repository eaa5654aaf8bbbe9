"""Token, cost and call accounting for one kernel, and the budgets that stop its evolution.

    Ledger;  Budget.check(ledger) -> None | raises BudgetSpent;  RunBudget;  RunBudgetSpent

A `Ledger` adds up every answer a kernel used, cached or not, so a replayed run reports and
decides as the run it replays (but for wall-clock time). `Budget.check` raises `BudgetSpent`
before a call the kernel's budget (calls, tokens, cost, seconds) does not allow. A `RunBudget`
bounds a whole `gen` or `batch` (HTTP requests, retries included, and fresh tokens), shared by
the batch's workers through one small locked file; meeting it stops a kernel as its own budget
would, keeping its best candidate. docs/llm.md, "Budgets and accounting".
"""
from __future__ import annotations

import fcntl
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ...config import LLMConfig


class BudgetSpent(Exception):
    """No budget left for another call: the evolution stops and keeps its best candidate."""


class RunBudgetSpent(BudgetSpent):
    """The run's request or token budget is spent (`max_run_requests`, `max_run_tokens`)."""


@dataclass
class Ledger:
    calls: int = 0
    cached_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0

    def add(self, usage: dict, cached: bool, cfg: LLMConfig) -> None:
        self.calls += 1
        self.cached_calls += int(cached)
        self.tokens_in += int(usage.get("prompt_tokens") or 0)
        self.tokens_out += int(usage.get("completion_tokens") or 0)
        self.cost = round(self.tokens_in * cfg.price_in / 1e6 + self.tokens_out * cfg.price_out / 1e6, 6)

    def figures(self) -> dict:
        """Row fields of a report (the cached count is left out: it differs between a run
        and its replay, which must agree byte for byte)."""
        return {"llm_calls": self.calls, "llm_tokens_in": self.tokens_in,
                "llm_tokens_out": self.tokens_out, "llm_cost": self.cost}


@dataclass
class Budget:
    cfg: LLMConfig
    started: float = field(default_factory=time.monotonic)

    def check(self, ledger: Ledger) -> None:
        c = self.cfg
        if ledger.calls >= c.max_calls:
            raise BudgetSpent(f"call budget spent ({ledger.calls} of {c.max_calls} calls)")
        if ledger.tokens_in + ledger.tokens_out >= c.max_kernel_tokens:
            raise BudgetSpent(f"token budget spent ({ledger.tokens_in + ledger.tokens_out} of "
                              f"{c.max_kernel_tokens})")
        if c.max_cost and ledger.cost >= c.max_cost:
            raise BudgetSpent(f"cost budget spent ({ledger.cost:.4f} of {c.max_cost:.4f})")
        if time.monotonic() - self.started >= c.max_seconds:
            raise BudgetSpent(f"time budget spent ({c.max_seconds:.0f} s)")


class RunBudget:
    def __init__(self, cfg: LLMConfig, path: Path | str | None = None):
        self.cfg, self.path = cfg, Path(path) if path else None
        self._mine = {"requests": 0, "tokens": 0}

    def take_request(self) -> None:
        """Count one request about to be sent; RunBudgetSpent when the run may send no more."""
        def take(t):
            c = self.cfg
            if t["requests"] >= c.max_run_requests:
                raise RunBudgetSpent(f"run request budget spent ({t['requests']} of {c.max_run_requests} "
                                     "requests, retries included)")
            if t["tokens"] >= c.max_run_tokens:
                raise RunBudgetSpent(f"run token budget spent ({t['tokens']} of {c.max_run_tokens} tokens)")
            t["requests"] += 1
        self._update(take)

    def add_tokens(self, n: int) -> None:
        self._update(lambda t: t.__setitem__("tokens", t["tokens"] + int(n)))

    def totals(self) -> dict:
        return self._update(lambda t: None)

    def summary(self) -> str:
        t = self.totals()
        return (f"{t['requests']} of {self.cfg.max_run_requests} request(s), {t['tokens']} of "
                f"{self.cfg.max_run_tokens} fresh token(s) of the run's budget")

    def _update(self, change) -> dict:
        if self.path is None:
            change(self._mine)
            return dict(self._mine)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                f.seek(0)
                try:
                    totals = {"requests": 0, "tokens": 0, **json.loads(f.read() or "{}")}
                except ValueError:
                    totals = {"requests": 0, "tokens": 0}
                before = dict(totals)
                try:
                    change(totals)
                finally:
                    if totals != before:
                        f.seek(0)
                        f.truncate()
                        f.write(json.dumps(totals))
                        f.flush()
                return totals
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
