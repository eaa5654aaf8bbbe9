"""The `llm` and `hybrid` generators: intermediate-structured generation with any OpenAI-compatible model.

    write_is(spec, cfg, client=None, run=None) -> ModelIS(kernel, text, ledger, log)
    generate(kernel, cfg, *, backend, dataset, seed, hybrid=False, run=None) -> Generated

Takes a prose-only spec (`write_is`: the model writes its formal part, which t2c validates,
builds and runs at the smallest preset, sending errors back for repair) or a kernel
(`generate`: candidates from the IS and the ABI, evolved against the ladder on a seed derived
from, never equal to, the verification seed; `hybrid` seeds the population with poly's). `run`
is the whole run's `budget.RunBudget`. Raises `EndpointFailed` for a failing endpoint; refuses
with UserError no model, a replay miss, or a model that cannot write a valid IS within its
rounds or budget. docs/llm.md.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ...config import LLMConfig
from ...errors import UserError
from .budget import Budget, BudgetSpent, Ledger, RunBudget
from .client import Client
from .evolve import Evolution
from .prompts import extract, follow_up, is_messages, repair_text


@dataclass
class ModelIS:
    kernel: object
    text: str                    # the model's formal part, as it wrote it
    ledger: Ledger
    log: list = field(default_factory=list)


@dataclass
class Generated:
    source: str | None
    lineage: list                # Candidate.record() per step
    ledger: Ledger
    log: list
    stop_reason: str
    candidates: list = field(default_factory=list)   # (step, source) for the report folder
    best_step: int | None = None


def write_is(spec, cfg: LLMConfig, client: Client | None = None, run: RunBudget | None = None) -> ModelIS:
    from ...frontends.prose import kernel_from_c, kernel_from_statements
    from ...ir import DATASETS
    from ...verify.inputs import synthesize
    from ...verify.reference import ReferenceFailed, run_reference
    client = client or Client(cfg, run=run)
    ledger, budget, log = Ledger(), Budget(cfg), []
    messages, where = is_messages(spec), f"{spec.name}: the model's IS"
    problem = ""
    for attempt in range(max(1, cfg.rounds)):
        try:
            budget.check(ledger)
            reply = client.complete(messages, 0)
        except BudgetSpent as e:
            problem += f" ({e})"
            break
        ledger.add(reply.usage, reply.cached, cfg)
        log.append(f"IS attempt {attempt}: {reply.usage.get('prompt_tokens', 0)} tokens in, "
                   f"{reply.usage.get('completion_tokens', 0)} out{', cached' if reply.cached else ''}")
        formal = extract(reply.text, ("t2c",))
        code = None if formal else extract(reply.text, ("c", "c99"))
        try:
            if formal is None and code is None:
                raise UserError("the answer has no ```c (or ```t2c) block", file=where,
                                hint="answer with one fenced block")
            k = (kernel_from_statements(spec, formal, where) if formal
                 else kernel_from_c(spec, code, where))
            smallest = next((d for d in DATASETS if all(z.preset(d) is not None for z in k.sizes)),
                            DATASETS[0])
            sizes = k.dataset_sizes(smallest)
            run_reference(k, sizes, synthesize(k, sizes, 0), checked_run=True)   # the model never sees these
            return ModelIS(k, formal or code, ledger, log)
        except (UserError, ReferenceFailed) as e:
            problem = str(e)
            log.append(f"IS attempt {attempt} rejected: {problem[:300]}")
            messages = follow_up(messages, reply.text, repair_text(f"t2c could not use it: {problem}"))
    raise UserError(f"the model did not write a usable IS for '{spec.name}' in {cfg.rounds} "
                    f"attempt(s): {problem}", file=spec.path, line=1, col=1,
                    hint="add a formal ```t2c block (docs/specs.md), or try another model")


def evolution_seed(seed: int) -> int:
    """The evolution's test-data seed: fixed by the secret one, and different from it."""
    return int(hashlib.sha256(f"{seed}:llm-evolution".encode()).hexdigest()[:12], 16)


def generate(k, cfg: LLMConfig, *, backend: str, dataset: str, seed: int, timeout=None,
             hybrid: bool = False, client: Client | None = None, run: RunBudget | None = None) -> Generated:
    from ...verify.ladder import ladder
    measures = backend == "gpu"

    def check(source: str, slower_than: float | None = None):
        return ladder(k, source, backend=backend, dataset=dataset, seed=evolution_seed(seed),
                      timeout=timeout, bench=measures, slower_than=slower_than)

    seed_source = None
    if hybrid:
        from .. import generate as generate_with
        try:
            seed_source = generate_with(k, "poly")
        except UserError:               # poly cannot map it: the model starts from scratch
            seed_source = None
    evo = Evolution(k, client or Client(cfg, run=run), check, cfg, measures_speed=measures)
    best = evo.run(seed_source)
    return Generated(best.source if best else None, [c.record() for c in evo.lineage], evo.ledger,
                     evo.log, evo.stop_reason,
                     [(c.step, c.source) for c in evo.lineage if c.source is not None],
                     best.step if best else None)
