"""The per-kernel stages the batch engine runs, in pipeline order.

Each stage is a pure function of its inputs: `run(ctx, work) -> result` where `ctx`
holds the source path, the settings and the upstream stages' results, `work` is a
fresh folder for the files it makes, and `result` is a JSON-able dict with at
least `status` (ok | failed | error | skipped | unsupported) and `summary` (one
line).  `key_parts(ctx)` names everything the stage's output depends on; the
engine hashes those parts into the stage's cache key and, when a key changes,
reports which part changed as the reason for running it again.

A stage never raises for a kernel's own fault: a user error in the source is
status `error` with the `file:line:col` message; a wrong or crashing candidate is
`failed`.  Only bugs in t2c escape as exceptions (the engine reports those too).
"""
from __future__ import annotations

import hashlib
import shutil
from functools import lru_cache
from pathlib import Path

from .. import __version__
from ..errors import UserError
from ..runtime.build import compiler_version

@lru_cache(maxsize=None)
def code_version(*packages: str) -> str:
    """Hash of t2c's own code for these subpackages: a stage's output changes when its code does."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(__version__.encode())
    for pkg in packages:
        for f in sorted((root / pkg).rglob("*")):
            if f.is_file() and f.suffix in (".py", ".h", ".hpp", ".cpp", ".cu", ".j2"):
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest()[:20]


def _kernel(ctx):
    from ..ir import from_yaml
    return from_yaml(Path(ctx["upstream"]["parse"]["_dir"], "is.yaml").read_text())


# -- parse --------------------------------------------------------------------------------

def parse_parts(ctx) -> dict:
    from ..frontends.c.preprocess import preprocess
    src = Path(ctx["source"])
    if src.suffix == ".c":
        try:
            pre = preprocess(src.resolve())
        except UserError as e:
            pre = f"unpreprocessable: {e}"
    else:
        pre = ""                                      # a prose spec is its own whole input
    return {"source": _sha(src.read_bytes()), "preprocessed": _sha(pre),
            "function": ctx["settings"].get("function") or "",
            "frontend": code_version("frontends", "ir", "analysis")}


def parse_run(ctx, work: Path) -> dict:
    from ..frontends import read_kernel
    from ..frontends.prose import NeedsLLM
    from ..ir import to_yaml
    try:
        k = read_kernel(ctx["source"], ctx["settings"].get("function"))
    except NeedsLLM as e:               # prose only: skipped until an LLM backend is configured
        return {"status": "needs-llm", "summary": str(e)}
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    (work / "is.yaml").write_text(to_yaml(k))
    return {"status": "ok", "summary": f"{k.name}: {len(k.arrays)} arrays, sizes "
            f"{', '.join(s.name for s in k.sizes)}", "is_key": k.key(), "name": k.name}


# -- reference ----------------------------------------------------------------------------

def reference_parts(ctx) -> dict:
    s = ctx["settings"]
    return {"is": ctx["upstream"]["parse"]["is_key"], "seed": s["seed"],
            "cc": compiler_version("gcc"), "flags": " ".join(s["ref_cflags"]),
            "code": code_version("verify", "runtime")}


def reference_run(ctx, work: Path) -> dict:
    """The reference builds and runs at the smallest preset, and matches the original program.

    Only a check: the ladder runs the reference at the target dataset itself (and the bench
    rung times it), so this stage does not depend on the dataset and never repeats that work."""
    from ..ir import DATASETS
    from ..verify.fidelity import check_fidelity
    from ..verify.inputs import synthesize
    from ..verify.reference import ReferenceFailed, run_reference
    k = _kernel(ctx)
    s = ctx["settings"]
    smallest = next((d for d in DATASETS if all(z.preset(d) is not None for z in k.sizes)), None)
    try:
        sizes = k.dataset_sizes(smallest or DATASETS[0])
        run_reference(k, sizes, None if k.init else synthesize(k, sizes, s["seed"]))
        is_c = Path(ctx["source"]).suffix == ".c"
        fid = check_fidelity(k, Path(ctx["source"]), smallest) if is_c and k.init else None
    except UserError as e:
        return {"status": "error", "summary": str(e)}
    except ReferenceFailed as e:
        return {"status": "failed", "summary": str(e)}
    result = {"sizes": sizes, "fidelity": None if fid is None else fid.ok}
    if fid is not None and not fid.ok:
        return result | {"status": "failed", "summary": f"fidelity: {fid.detail}"}
    return result | {"status": "ok", "summary": f"reference runs at {smallest}" +
                     ("" if fid is None else ", identical to the original program")}


# -- generate -----------------------------------------------------------------------------

def generate_parts(ctx) -> dict:
    s = ctx["settings"]
    return {"is": ctx["upstream"]["parse"]["is_key"], "generator": s["generator"],
            "options": s.get("generator_options") or "",
            "code": code_version("generators", "analysis")}


def generate_run(ctx, work: Path) -> dict:
    from ..generators import generate
    k = _kernel(ctx)
    s = ctx["settings"]
    try:
        source = generate(k, s["generator"])
    except UserError as e:
        return {"status": "unsupported", "summary": str(e)}
    (work / "candidate.cu").write_text(source)
    return {"status": "ok", "summary": f"{len(source.splitlines())} lines of CUDA",
            "candidate": _sha(source)}


# -- verify -------------------------------------------------------------------------------

def verify_parts(ctx) -> dict:
    s = ctx["settings"]
    return {"is": ctx["upstream"]["parse"]["is_key"],
            "candidate": ctx["upstream"]["generate"].get("candidate", ""),
            "backend": s["backend"], "dataset": s["dataset"], "seed": s["seed"],
            "toolchain": s["toolchain"], "timeout": s["timeout"], "code": code_version("verify", "runtime")}


def verify_run(ctx, work: Path) -> dict:
    from ..verify.ladder import ladder
    k = _kernel(ctx)
    s = ctx["settings"]
    cand = Path(ctx["upstream"]["generate"]["_dir"], "candidate.cu")
    shutil.copy(cand, work / "candidate.cu")
    card = ladder(k, cand.read_text(), backend=s["backend"], dataset=s["dataset"],
                  seed=s["seed"], timeout=s["timeout"], bench=False)
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
    timing = bench(k, cand, dataset=s["dataset"], seed=s["seed"], timeout=s["timeout"])
    (work / "timing.json").write_text(timing.to_json())
    return {"status": "ok", "summary": timing.summary(), **timing.figures()}


# Pipeline order; `gpu` marks stages that hold a GPU slot while they run.
STAGES = (
    ("parse", parse_parts, parse_run, False),
    ("reference", reference_parts, reference_run, False),
    ("generate", generate_parts, generate_run, False),
    ("verify", verify_parts, verify_run, True),
    ("bench", bench_parts, bench_run, True),
)
STAGE_NAMES = tuple(s[0] for s in STAGES)
