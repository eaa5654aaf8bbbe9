"""Token, cost and call accounting for one kernel, and the budgets that stop its evolution.

A `Ledger` adds up every answer the kernel used, cached or not (a replayed run then
reports, and decides, exactly as the run it replays).  `Budget.check(ledger)` raises
`BudgetSpent` before a call the budget does not allow: calls, tokens (prompt +
completion) and cost are counted from the answers; time is wall-clock since the kernel
started, the one budget a replay cannot reproduce when it is the one that stops a run.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ...config import LLMConfig


class BudgetSpent(Exception):
    """No budget left for another call: the evolution stops and keeps its best candidate."""


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
