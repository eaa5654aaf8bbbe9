"""The per-kernel stages the batch engine runs, in pipeline order.

Each stage is a pure function `run(ctx, work) -> result` of the source path, the settings and
the upstream results (`ctx`), writing its files in a fresh `work` folder, giving a JSON-able
dict with at least `status` (ok | failed | error | endpoint | skipped | unsupported) and a
one-line `summary`; `key_parts(ctx)` names everything its output depends on (the cache key, and
the reason when it changes). A stage never raises for a kernel's own fault (a user error is
`error`, a wrong candidate `failed`, a failing endpoint `endpoint`, not cached); only bugs in
t2c escape. docs/usage.md, "The batch engine".
"""
from __future__ import annotations

import hashlib
import json
import shutil
from contextlib import nullcontext
from pathlib import Path

from ..errors import EndpointFailed, UserError
from ..runtime.build import code_version, compiler_version
from ..verify.synth import sizing


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest()[:20]


def _kernel(ctx):
    from ..ir import from_yaml
    return from_yaml(Path(ctx["upstream"]["parse"]["_dir"], "is.yaml").read_text())


# -- parse --------------------------------------------------------------------------------

def parse_parts(ctx) -> dict:
    from ..frontends.c.preprocess import digest
    src = Path(ctx["source"])
    if src.suffix == ".c":
        try:
            pre = digest(src.resolve(), Path(ctx["state_dir"]) / "preprocessed")
        except UserError as e:
            pre = _sha(f"unpreprocessable: {e}")
    else:
        pre = _sha("")                                # a prose spec is its own whole input
    return {"source": _sha(src.read_bytes()), "preprocessed": pre,
            "function": ctx["settings"].get("function") or "",
            "frontend": code_version("frontends", "ir", "analysis"), **_model_is_parts(ctx)}


LLM_GENERATORS = ("llm", "hybrid")


def _llm_config(ctx):
    from ..config import LLMConfig
    return LLMConfig.from_dict(ctx["settings"]["llm"])


def _run_budget(ctx):
    """The run's request and token budget, shared by every worker through its file."""
    from ..generators.llm.budget import RunBudget
    return RunBudget(_llm_config(ctx), ctx.get("llm_run"))


def _model_is_parts(ctx) -> dict:
    """A prose-only spec's IS is the model's when an LLM generator runs: its settings count."""
    from ..frontends.prose import load_spec
    src, s = Path(ctx["source"]), ctx["settings"]
    if s["generator"] not in LLM_GENERATORS or src.suffix != ".md":
        return {}
    try:
        if load_spec(src).blocks:
            return {}
    except UserError:
        return {}
    return {"llm": _llm_config(ctx).identity(), "llm_code": code_version("generators/llm")}


def parse_run(ctx, work: Path) -> dict:
    from ..frontends import read_kernel
    from ..frontends.prose import NeedsLLM
    from ..ir import to_yaml
    try:
        k = read_kernel(ctx["source"], ctx["settings"].get("function"))
    except NeedsLLM as e:               # prose only: skipped unless an LLM generator runs
        if ctx["settings"]["generator"] not in LLM_GENERATORS:
            return {"status": "needs-llm", "summary": str(e)}
        return _model_is(ctx, work)
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    (work / "is.yaml").write_text(to_yaml(k))
    return {"status": "ok", "summary": f"{k.name}: {len(k.arrays)} arrays, sizes "
            f"{', '.join(s.name for s in k.sizes)}", "is_key": k.key(), "name": k.name}


def _model_is(ctx, work: Path) -> dict:
    """Intermediate-structured generation, step one: the model writes the spec's formal part."""
    from ..frontends.prose import load_spec
    from ..generators.llm import write_is
    from ..ir import to_yaml
    try:
        got = write_is(load_spec(ctx["source"]), _llm_config(ctx), run=_run_budget(ctx))
    except EndpointFailed as e:
        return {"status": "endpoint", "summary": str(e)}
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    k = got.kernel
    (work / "is.yaml").write_text(to_yaml(k))
    (work / "model-is.txt").write_text(got.text)
    (work / "llm.log").write_text("\n".join(got.log) + "\n")
    return {"status": "ok", "summary": f"{k.name}: IS written by the model ({len(k.arrays)} arrays)",
            "is_key": k.key(), "name": k.name, **got.ledger.figures()}


# -- reference ----------------------------------------------------------------------------

def reference_parts(ctx) -> dict:
    s = ctx["settings"]
    return {"is": ctx["upstream"]["parse"]["is_key"], "seed": s["seed"],
            "cc": compiler_version("gcc"), "flags": " ".join(s["ref_cflags"]),
            "code": code_version("verify", "runtime")}


def reference_run(ctx, work: Path) -> dict:
    """The reference builds and runs at the smallest preset (where the sizes share none, at the
    smallest sizes), and matches the original program.

    Only a check: the ladder runs the reference at the target dataset itself (and the bench
    rung times it), so this stage does not depend on the dataset and never repeats that work."""
    from ..ir import DATASETS
    from ..verify.fidelity import check_fidelity
    from ..verify.inputs import synthesize
    from ..verify.reference import ReferenceFailed, run_reference
    from ..verify.synth import smoke_points
    k = _kernel(ctx)
    s = ctx["settings"]
    smallest = next((d for d in DATASETS if all(z.preset(d) is not None for z in k.sizes)), None)
    points = smoke_points(k) if k.sizes and not smallest else [("", k.dataset_sizes(smallest or DATASETS[0]))]
    if not points:
        return {"status": "error", "summary": f"no small sizes meet the constraints {', '.join(k.constraints)}"}
    sizes = points[0][1]
    try:
        run_reference(k, sizes, None if k.init else synthesize(k, sizes, s["seed"]), checked_run=True)
        is_c = Path(ctx["source"]).suffix == ".c"
        fid = check_fidelity(k, Path(ctx["source"]), smallest) if is_c and k.init and smallest else None
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    except ReferenceFailed as e:
        return {"status": "failed", "summary": str(e)}
    result = {"sizes": sizes, "fidelity": None if fid is None else fid.ok}
    if fid is not None and fid.ok is False:
        return result | {"status": "failed", "summary": f"fidelity: {fid.detail}"}
    return result | {"status": "ok", "summary": f"reference runs at {smallest or sizes}" +
                     ("" if fid is None else ", identical to the original program" if fid.ok else f"; {fid.detail}")}


# -- generate -----------------------------------------------------------------------------

def generate_parts(ctx) -> dict:
    s = ctx["settings"]
    parts = {"is": ctx["upstream"]["parse"]["is_key"], "generator": s["generator"],
             "options": s.get("generator_options") or "",
             "code": code_version("generators", "analysis")}
    if s["generator"] in LLM_GENERATORS or s.get("evolve"):    # the ladder's verdicts steer the evolution
        parts |= {"backend": s["backend"], "dataset": s["dataset"], "seed": s["seed"],
                  "timeout": s["timeout"], "checker": code_version("verify", "runtime")}
    if s["generator"] in LLM_GENERATORS:
        parts["llm"] = _llm_config(ctx).identity()
    if s.get("evolve"):                      # the options search: its budget and the GPU it timed on
        parts |= {"evolve": s["evolve"], "gpu": s["gpu"] if s["backend"] == "gpu" else "emu"}
    return parts


def generate_run(ctx, work: Path) -> dict:
    from ..generators import generate
    k = _kernel(ctx)
    s = ctx["settings"]
    if s["generator"] in LLM_GENERATORS:
        return _evolved(ctx, k, work)
    if s.get("evolve"):
        return _options_search(ctx, k, work)
    try:
        source = generate(k, s["generator"])
    except UserError as e:
        return {"status": "unsupported", "summary": str(e)}
    (work / "candidate.cu").write_text(source)
    return {"status": "ok", "summary": f"{len(source.splitlines())} lines of CUDA",
            "candidate": _sha(source)}


def _evolved(ctx, k, work: Path) -> dict:
    """Step two: kernels from the IS and the ABI, evolved against the ladder (generators/llm)."""
    import json
    from ..generators.llm import generate
    s = ctx["settings"]
    try:
        got = generate(k, _llm_config(ctx), backend=s["backend"], dataset=s["dataset"], seed=s["seed"],
                       timeout=s["timeout"], hybrid=s["generator"] == "hybrid", run=_run_budget(ctx))
    except EndpointFailed as e:
        return {"status": "endpoint", "summary": str(e)}
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    (work / "llm.log").write_text("\n".join(got.log + [f"stopped: {got.stop_reason}"]) + "\n")
    (work / "lineage.json").write_text(json.dumps(got.lineage, indent=1))
    for step, source in got.candidates:
        (work / f"step{step}.cu").write_text(source)
    figures = {**got.ledger.figures(), "evolution": got.lineage}
    if got.source is None:
        return {"status": "failed", "summary": f"no usable candidate from the model ({got.stop_reason})",
                **figures}
    (work / "candidate.cu").write_text(got.source)
    best = got.lineage[got.best_step]
    return {"status": "ok", "summary": f"{len(got.source.splitlines())} lines of CUDA, step "
            f"{best['step']} ({best['origin']}, {best['status']}) of {len(got.lineage)}; "
            f"{got.ledger.calls} model call(s)", "candidate": _sha(got.source), **figures}


def _options_search(ctx, k, work: Path) -> dict:
    """`--evolve`: the poly options search (generators/evolve), each candidate through the
    ladder on test data of its own (a seed derived from the batch's, never equal to it: the
    verify stage judges the winner on inputs the search never saw), holding the GPU slot only
    around each candidate's device runs.  Every candidate is kept as stepN.cu with the
    lineage in evolve.json; a winner is cached per IS + GPU + t2c version and checked again."""
    from ..generators.evolve import Budget, search
    from ..verify.synth import derive
    s, budget = ctx["settings"], ctx["settings"]["evolve"]
    got = search(k, backend=s["backend"], dataset=s["dataset"], seed=derive(s["seed"], "poly-evolution"),
                 budget=Budget(budget["candidates"], budget["seconds"]), timeout=s["timeout"], device=_slot(ctx),
                 timed_device=_slot(ctx, exclusive=True))
    (work / "evolve.json").write_text(json.dumps(got.summary(), indent=2, default=str))
    for step in got.lineage:
        (work / f"step{step.step}.cu").write_text(step.source)
    lineage = [step.record() for step in got.lineage]
    best = got.best
    if best is None or not best.accepted:
        where = f" ({best.evidence.rung}: {best.evidence.reason})" if best else ""
        return {"status": "failed", "summary": f"no candidate of the options search passed the ladder{where}",
                "evolution": lineage}
    (work / "candidate.cu").write_text(best.source)
    ms = f", {best.kernel_ms:.4g} ms" if best.kernel_ms is not None else ""
    return {"status": "ok", "summary": f"{len(best.source.splitlines())} lines of CUDA, step {best.step} "
            f"({best.move}{ms}) of {len(got.lineage)} checked; {got.stopped}",
            "candidate": _sha(best.source), "evolution": lineage}


# -- suite --------------------------------------------------------------------------------

def suite_parts(ctx) -> dict:
    s = ctx["settings"]
    return {"is": ctx["upstream"]["parse"]["is_key"], "backend": s["backend"], "dataset": s["dataset"],
            "seed": s["seed"], "cc": compiler_version("gcc"), "code": code_version("verify", "runtime"),
            "sizing": list(sizing())}


def suite_run(ctx, work: Path) -> dict:
    """The test suite from the batch's seed, drawn and gated once per kernel, dataset and backend:
    a new candidate (another generator, --rerun verify) is judged on it without drawing it again.
    Kept as sizes, distributions and seeds (suite.json: no inputs or outputs on disk); the verify
    and bench stages take it from memory in this worker, else replay it with one reference run
    per case (verify/synth.replay_suite)."""
    from ..verify.ladder import plan_suite
    from ..verify.reference import ReferenceFailed
    s = ctx["settings"]
    try:
        plan = plan_suite(_kernel(ctx), s["seed"], s["dataset"], s["backend"])
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    except ReferenceFailed as e:
        return {"status": "failed", "summary": f"the reference fails on the synthesized inputs: {e}"}
    (work / "suite.json").write_text(json.dumps(plan))
    g = plan["gate"]
    cases = plan["suite"]["cases"]
    full = [c["sizes"] for c in cases if c["rung"] == "full"]
    step = (plan["suite"].get("full_step") or {}).get("line")
    return {"status": "ok", "summary": f"{len(cases)} cases ({len(full)} at {plan['suite']['full_dataset']}"
            + (f"; {step}" if step else "") + "), "
            f"{g['killed']}/{g['total']} mutants rejected" + ("" if g["passed"] else " (weakly tested)")
            + (f", {len(g['equivalent'])} equivalent left out" if g.get("equivalent") else "")}


def planned_suite(ctx) -> dict | None:
    """The suite stage's plan, or None when its file is gone (the ladder then draws the suite)."""
    try:
        return json.loads((Path(ctx["upstream"]["suite"]["_dir"]) / "suite.json").read_text())
    except (KeyError, OSError, ValueError):
        return None


# -- verify -------------------------------------------------------------------------------

def _slot(ctx, exclusive: bool = False):
    """The GPU slot a GPU stage takes around its runs on the device (the engine's lock per
    GPU); the CPU work before them (suite, mutant gate, nvcc) leaves the GPU to others.
    `exclusive`: the whole GPU, for the bench's timed process (chain.gpu_slot)."""
    slot = ctx.get("gpu_slot")
    if slot is None:
        return nullcontext
    return (lambda: slot(exclusive=True)) if exclusive else slot


def verify_parts(ctx) -> dict:
    s = ctx["settings"]
    # the suite it is judged on too: a suite drawn again (other emu budgets: a full rung at SMALL
    # where it stepped down to MINI) is judged again, not taken from the cache
    return {"is": ctx["upstream"]["parse"]["is_key"],
            "candidate": ctx["upstream"]["generate"].get("candidate", ""),
            "backend": s["backend"], "dataset": s["dataset"], "seed": s["seed"],
            "toolchain": s["toolchain"], "timeout": s["timeout"], "code": code_version("verify", "runtime"),
            "suite": suite_parts(ctx)}


def verify_run(ctx, work: Path) -> dict:
    from ..verify.ladder import ladder
    k = _kernel(ctx)
    s = ctx["settings"]
    cand = Path(ctx["upstream"]["generate"]["_dir"], "candidate.cu")
    shutil.copy(cand, work / "candidate.cu")
    try:
        card = ladder(k, cand.read_text(), backend=s["backend"], dataset=s["dataset"],
                      seed=s["seed"], timeout=s["timeout"], bench=False, device=_slot(ctx),
                      planned=planned_suite(ctx))
    except UserError as e:              # the backend cannot run here (no GPU answers): the user's to fix
        return {"status": "error", "summary": str(e)}
    (work / "evidence.json").write_text(card.to_json())
    return {"status": "ok" if card.accepted else "failed", "summary": card.summary(),
            **card.figures()}


# -- bench --------------------------------------------------------------------------------

def bench_parts(ctx) -> dict:
    return verify_parts(ctx) | {"gpu": ctx["settings"]["gpu"]}


def bench_run(ctx, work: Path) -> dict:
    if ctx["settings"]["backend"] != "gpu":
        return {"status": "skipped", "summary": "no GPU: emu gives no speed numbers"}
    from ..verify.ladder import bench
    k = _kernel(ctx)
    s = ctx["settings"]
    cand = Path(ctx["upstream"]["generate"]["_dir"], "candidate.cu").read_text()
    try:
        timing = bench(k, cand, dataset=s["dataset"], seed=s["seed"], timeout=s["timeout"], device=_slot(ctx),
                       timed_device=_slot(ctx, exclusive=True), planned=planned_suite(ctx))
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    (work / "timing.json").write_text(timing.to_json())
    return {"status": "ok", "summary": timing.summary(), **timing.figures()}


# Pipeline order; `gpu` marks stages that hold a GPU slot while they run (the whole GPU while
# a bench times a candidate).
STAGES = (
    ("parse", parse_parts, parse_run, False),
    ("reference", reference_parts, reference_run, False),
    ("generate", generate_parts, generate_run, True),      # a slot only for --evolve's candidates
    ("suite", suite_parts, suite_run, False),
    ("verify", verify_parts, verify_run, True),
    ("bench", bench_parts, bench_run, True),
)
STAGE_NAMES = tuple(s[0] for s in STAGES)
