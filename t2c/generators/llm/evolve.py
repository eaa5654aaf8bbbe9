"""Feedback-adaptive, correctness-first evolution of one kernel's candidates with a model.

    Evolution(kernel, client, check, cfg).run(seed_source=None) -> Candidate | None

Takes `check(source, slower_than=None) -> Evidence`, the ladder on the evolution's own inputs.
Round 0 checks the seed candidate (hybrid: poly's) and asks for `population` fresh ones; later
rounds repair the most promising rejected candidates with the ladder's feedback (never values),
or, once one is correct and the backend measures speed, ask for faster versions of the best; on
emu the first correct candidate ends it. Selection is correctness first (accepted, how far up
the ladder, kernel time, age); `Budget` stops it between calls; `lineage` keeps every step.
docs/llm.md, "What happens".
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ...config import LLMConfig
from ...verify.evidence import Judged, slower_than
from .budget import Budget, BudgetSpent, Ledger
from .prompts import (extract, follow_up, improve_messages, kernel_messages, ladder_feedback,
                      repair_text)

RUNGS = ("static", "build", "gate", "smoke", "random", "races", "full", "bench")
NO_CODE = "Your answer has no complete ```cuda block with the whole .cu file."


@dataclass
class Candidate(Judged):
    step: int
    origin: str                      # poly | model | repair of N | faster than N
    messages: list                   # the conversation that produced it
    answer: str                      # the raw answer (the poly source for the seed)
    source: str | None               # None: the answer had no usable code
    evidence: object = None          # verify.evidence.Evidence

    def progress(self) -> int:
        if self.evidence is None:
            return -1
        return len(RUNGS) if self.accepted else RUNGS.index(self.evidence.rung)

    def rank(self) -> tuple:
        return (self.accepted, self.progress(), -(self.kernel_ms or 0.0), -self.step)

    def record(self) -> dict:
        ev = self.evidence
        status = ("accepted" if self.accepted else "no code" if ev is None else f"rejected at {ev.rung}")
        return {"step": self.step, "origin": self.origin, "status": status,
                "reason": "" if ev is None or self.accepted else ev.reason, "kernel_ms": self.kernel_ms,
                **({"timing": ev.timings["stopped_early"]} if ev and "stopped_early" in (ev.timings or {}) else {})}


@dataclass
class Evolution:
    kernel: object
    client: object
    check: object
    cfg: LLMConfig
    measures_speed: bool = False
    ledger: Ledger = field(default_factory=Ledger)
    lineage: list = field(default_factory=list)      # every Candidate, in order
    log: list = field(default_factory=list)          # one line per model call (no key, no data)
    stop_reason: str = ""
    repaired: set = field(default_factory=set)

    def run(self, seed_source: str | None = None) -> Candidate | None:
        budget = Budget(self.cfg)
        base = kernel_messages(self.kernel)
        if seed_source:
            self._add("poly", base, f"```cuda\n{seed_source}```", seed_source)
        try:
            if not self._done():
                for i in range(self.cfg.population):
                    self._ask("model", base, i, budget)
            for _ in range(1, self.cfg.rounds):
                if self._done():
                    break
                best = self.best()
                if best is not None and best.accepted:
                    note = f"Its kernel takes {best.kernel_ms:.4g} ms on the GPU." if best.kernel_ms else ""
                    for i in range(self.cfg.population):
                        self._ask(f"faster than {best.step}", improve_messages(
                            self.kernel, best.source, note), i, budget)
                    continue
                # The most promising candidates not repaired yet (the newest, as a rule).
                fresh = [c for c in self.lineage if c.step not in self.repaired] or self.lineage
                parents = sorted(fresh, key=Candidate.rank, reverse=True)[:self.cfg.population]
                self.repaired.update(p.step for p in parents)
                for i, p in enumerate(parents):
                    what = NO_CODE if p.source is None else ladder_feedback(p.evidence)
                    self.log.append(f"step {len(self.lineage)}: feedback on step {p.step}: "
                                    f"{' | '.join(what.splitlines()[:2])[:300]}")
                    self._ask(f"repair of {p.step}", follow_up(p.messages, p.answer, repair_text(what)),
                              i, budget)
            if not self.stop_reason:
                self.stop_reason = "accepted" if self._done() else f"{self.cfg.rounds} round(s) done"
        except BudgetSpent as e:
            self.stop_reason = str(e)
        return self.best()

    def best(self) -> Candidate | None:
        usable = [c for c in self.lineage if c.source is not None]
        return max(usable, key=Candidate.rank) if usable else None

    def _done(self) -> bool:
        """Emu measures no speed: a correct candidate is as good as it gets."""
        best = self.best()
        return bool(best and best.accepted and not self.measures_speed)

    def _ask(self, origin: str, messages: list, sample: int, budget: Budget) -> None:
        if self._done():                # a member of this round already is as good as it gets
            return
        budget.check(self.ledger)
        reply = self.client.complete(messages, sample)
        self.ledger.add(reply.usage, reply.cached, self.cfg)
        self.log.append(f"step {len(self.lineage)}: {origin} (sample {sample}): "
                        f"{reply.usage.get('prompt_tokens', 0)} tokens in, "
                        f"{reply.usage.get('completion_tokens', 0)} out, finish '{reply.finish_reason}'"
                        f"{', cached' if reply.cached else ''}")
        self._add(origin, messages, reply.text, extract(reply.text, ("cuda", "cu", "cpp", "c++")))

    def _add(self, origin: str, messages: list, answer: str, source: str | None) -> None:
        seen = {hashlib.sha256(c.source.encode()).hexdigest(): c.evidence
                for c in self.lineage if c.source is not None}
        evidence = None
        if source is not None:          # the same text twice is checked once
            evidence = seen.get(hashlib.sha256(source.encode()).hexdigest()) or \
                self.check(source, slower_than=slower_than(self.lineage))     # a clearly slow one: timed briefly
        c = Candidate(len(self.lineage), origin, messages, answer, source, evidence)
        self.lineage.append(c)
        r = c.record()
        ms = f", {c.kernel_ms:.4g} ms" if c.kernel_ms else ""
        self.log.append(f"step {c.step}: {r['status']}{': ' + r['reason'] if r['reason'] else ''}{ms}")
