"""The `llm` and `hybrid` generators: intermediate-structured generation with any OpenAI-compatible model.

    write_is(spec, cfg, client=None, run=None)  -> ModelIS(kernel, text, ledger, log)   prose-only spec -> IS
    generate(kernel, cfg, *, backend, dataset, seed, hybrid=False, run=None) -> Generated

`run` is the run's `budget.RunBudget` (requests and tokens of a whole gen or batch).

The two steps of intermediate-structured generation.  First, for a spec without a formal
part, the model writes it (a C99 reference function or ```t2c statements); t2c validates
it with the prose frontend, builds and runs its reference at the smallest preset, and sends
any error back for a repair, all before a kernel is asked for.  Then kernels are generated
from the IS and the ABI by `evolve.Evolution`, checked by the ladder on inputs drawn from a
seed derived from (never equal to, never shown) the verification seed; `hybrid` first puts
the poly candidate in the population.  Budgets and accounting: budget.py; the transport,
cache and retries: client.py.  Raises EndpointFailed for an endpoint that fails; refuses
with UserError: no model, a replay miss, a model that cannot write a valid IS within its
rounds or budget.
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
