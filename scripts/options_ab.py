"""Poly options side by side on one GPU: every variant verified, then timed in alternating rounds.

    source scripts/gpu_env.sh; python3 scripts/options_ab.py [KERNEL|FILE ...]
                                 on a GPU machine (default: the gemm family)
    env: DATASET (LARGE), ROUNDS (3), SEED (20261130), JOBS (8: ladders at once),
         VARIANTS (comma-separated names of VARIANTS below; default all), T2C_VERIFY_BENCH_REPS (20),
         T2C_BACKEND (gpu; emu checks the variants only: `DATASET=SMALL T2C_BACKEND=emu` off a GPU)

Each variant's candidate (`PolyOptions.load` of the variant's changes, in the flat option names
the reports used or as dotted paths; variants that print the same
source as an earlier one are dropped) climbs the whole ladder on the GPU, all on one suite per
kernel (one seed); then the accepted ones are timed in the harness's bench mode on that suite's
full case, the variants alternating within each round (same process setup, same inputs), and the
script prints each variant's median kernel time, the spread of the per-round medians, the model's
TF/s and the ratio to the first variant.  A benchmark script, not a test: it prints figures.
"""
import concurrent.futures as cf
import hashlib
import os
import statistics
import sys
from pathlib import Path

from t2c import config
from t2c.analysis import analyze
from t2c.analysis.cost import counts
from t2c.frontends import read_kernel
from t2c.generators.poly import PolyOptions, generate
from t2c.verify.compare import poison
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.ladder import ladder
from t2c.verify.reference import array_shape
from t2c.verify.synth import build_suite

ROOT = Path(__file__).resolve().parent.parent
BACKEND = os.environ.get("T2C_BACKEND", "gpu")
KERNELS = ("gemm", "2mm", "3mm", "syrk", "syr2k", "covariance", "correlation")
VARIANTS = {
    "default": {},
    "no input copies": {"copy_inputs": False},
    "no sinking": {"sink_updates": False},
    "no hulls": {"staged_hulls": False},
    "heavy blocks last": {"heavy_first": False},
    "factors on fragments": {"scale_in_place": False},
    "tile 8x4 factors on fragments": {"staged_tile": (8, 4), "scale_in_place": False},
    "no tensor cores": {"tensor_cores": False},
    "no async copies": {"async_copies": False},
    "3 blocks/SM": {"tile_blocks_per_sm": 3},
    "tile 8x4": {"staged_tile": (8, 4)},
    "previous default": {"mma_m16": False, "staged_tile": (4, 4), "async_stages": 2, "stage_depth": 16},
    "m8n8k4": {"mma_m16": False},
    "m8n8k4 2 stages": {"mma_m16": False, "async_stages": 2},
    "2 stages": {"async_stages": 2},
    "3 stages": {"async_stages": 3},
    "4 stages": {"async_stages": 4},
    "tile 8x4 2 stages": {"staged_tile": (8, 4), "async_stages": 2},
    "tile 8x4 3 stages": {"staged_tile": (8, 4), "async_stages": 3},
    "tile 8x4 4 stages": {"staged_tile": (8, 4), "async_stages": 4},
    "tile 8x4 block 16x8": {"staged_tile": (8, 4), "block_2d": (16, 8)},
    "tile 4x4 block 16x8": {"block_2d": (16, 8)},
    "tile 8x2": {"staged_tile": (8, 2)},
    "tile 8x2 2 stages": {"staged_tile": (8, 2), "async_stages": 2},
    "tile 8x4 block 16x8 2 stages": {"staged_tile": (8, 4), "block_2d": (16, 8), "async_stages": 2},
    "tile 8x4 block 16x8 3 stages": {"staged_tile": (8, 4), "block_2d": (16, 8), "async_stages": 3},
    "tile 8x4 block 16x8 4 stages": {"staged_tile": (8, 4), "block_2d": (16, 8), "async_stages": 4},
    "tile 8x4 3 stages 2 blocks/SM": {"staged_tile": (8, 4), "tile_blocks_per_sm": 2},
    "2 stages 2 blocks/SM": {"async_stages": 2, "tile_blocks_per_sm": 2},
    "3 stages 2 blocks/SM": {"tile_blocks_per_sm": 2},
    "tile 8x4 2 blocks/SM": {"staged_tile": (8, 4), "tile_blocks_per_sm": 2},
    "report 11 tiles": {"k_major_tiles": False},
    "loads in order": {"loads_first": False},
    "ring of 3 in 32x8": {"async_stages": 3, "staged_block": (0, 0)},
    "report 12 defaults": {"staged_block": (0, 0), "unrolled_copies": False, "forward_stores": False},
    "report 13 defaults": {"merge_reductions": False, "expand_private": False},
    "no batch tiles": {"batch_tiles": False},
    "one index per thread": {"grid.coarsen": None},
    "no preload": {"grid.preload": False},
    "coarsen by elements": {"grid.narrow": False},
    "elements blockDim apart": {"grid.vector": False},
    "blockDim apart by elements": {"grid.vector": False, "grid.narrow": False},
    "persistent host loops": {"launches.persistent": True},
    "constants in memory": {"hold_constants": False},
    "rectangles of 16x4": {"rect_block": (16, 4)},
    "rectangles of 8x8": {"rect_block": (8, 8)},
    "rectangles of 8x8 tile 4x4": {"rect_block": (8, 8), "rect_tile": (4, 4)},
    "stores in memory": {"forward_stores": False},
    "report 10 tiles": {"unrolled_copies": False, "whole_tiles": False, "rect_tile": (0, 0)},
    "unrolled everywhere": {"unrolled_copies": True},
    "rectangles' copies in a loop": {"rect_unrolled": False},
    "fragments always checked": {"whole_tiles": False},
    "rectangles as the rest": {"rect_tile": (0, 0)},
    "staged 8x4 16x8 3 stages": {"staged_tile": (8, 4), "staged_block": (16, 8), "async_stages": 3},
    "depth 8": {"stage_depth": 8},
    "depth 8 3 blocks/SM": {"stage_depth": 8, "tile_blocks_per_sm": 3},
    "prefetch": {"staged_prefetch": True, "async_copies": False},
    "no async 3 blocks/SM": {"async_copies": False, "tile_blocks_per_sm": 3},
    "arrays not resident": {"resident_arrays": False},
    "locals not resident": {"resident_locals": False},
    "no sweeps": {"column_sweeps": False},
    "no sweep rows": {"sweep_rows": False},
    "no sweep stage": {"sweep_stage": False},
    "no sweep stage 8x128": {"sweep_stage": False, "chunk_block": (8, 128)},
    "no sweep stage 16x64": {"sweep_stage": False, "chunk_block": (16, 64)},
    "chunks 16x64": {"chunk_block": (16, 64)},
    "chunks 8x128": {"chunk_block": (8, 128)},
    "chunks 2x128": {"chunk_block": (2, 128)},
    "chunks 4x256": {"chunk_block": (4, 256)},
    "chunks 2x256": {"chunk_block": (2, 256)},
    "chunks 4x64": {"chunk_block": (4, 64)},
    "chunks 8x64": {"chunk_block": (8, 64)},
    "sweep 16x32": {"sweep_block": (16, 32)},
    "sweep 8x64": {"sweep_block": (8, 64)},
    "sweep 32x32": {"sweep_block": (32, 32)},
    "no warp rows": {"warp_rows": False},
    "a warp per row": {"row_lanes": 32},
    "launches apart": {"merge_launches": False},
    "plain launches": {"programmatic_launches": False},
    "rows of 64 lanes": {"row_lanes": 64},
    "rows of 256 lanes": {"row_lanes": 256},
    "no scalar replacement": {"scalar_replacement": False},
    "scalars in one thread": {"thread_scalars": False},
    "every barrier": {"thread_scalars": False, "fewer_barriers": False},
    "one block 1024": {"one_block_threads": 1024},
    "one block 512": {"one_block_threads": 512},
    "one block 256": {"one_block_threads": 256},
    "one block 128": {"one_block.threads": 128},
    "one block 64": {"one_block.threads": 64},
    "one block 32": {"one_block.threads": 32},
    "no substitution": {"one_block.substitution": None},
    "blocked substitution": {"one_block.substitution": "blocked"},
    "sweep 8x32": {"sweep_block": (8, 32)},
    "sweep 4x64": {"sweep_block": (4, 64)},
    "sweep 4x32": {"sweep_block": (4, 32)},
    "sweep 2x64": {"sweep_block": (2, 64)},
    "sweep 32x16": {"sweep_block": (32, 16)},
    "sweep 8x128": {"sweep_block": (8, 128)},
    "sweep 4x128": {"sweep_block": (4, 128)},
    "sweep 2x128": {"sweep_block": (2, 128)},
    "sweep 16x64": {"sweep_block": (16, 64)},
    "no strips": {"grid.strips": None},
    "strips not ahead": {"grid.strips.ahead": False},
    "strips 64 threads": {"grid.strips.threads": 64},
    "strips 16 wide": {"grid.strips.width": 16},
    "strips 64 wide": {"grid.strips.width": 64},
    "no skewed tiles": {"wavefront.skewed": None},
    "skewed no window": {"wavefront.skewed.window": False},
    "skewed no shuffle": {"wavefront.skewed.shuffle": False},
    "skewed outer 2 walk 32": {"wavefront.skewed.outer": 2, "wavefront.skewed.walk": 32},
    "skewed walk 32": {"wavefront.skewed.walk": 32},
    "skewed walk 128": {"wavefront.skewed.walk": 128},
    "skewed outer 2": {"wavefront.skewed.outer": 2},
    "skewed outer 8": {"wavefront.skewed.outer": 8},
    "skewed 64 lanes": {"wavefront.skewed.lanes": 64},
    "no time tiles": {"launches.time_tiles": None},
    "time tiles 256 cells": {"launches.time_tiles.window": 256},
    "time tiles 512 cells": {"launches.time_tiles.window": 512},
    "scratch by cudaMalloc": {"pool": False},
    "time tiles 1024 cells": {"launches.time_tiles.window": 1024},
    "time tiles 2048 cells 512 threads": {"launches.time_tiles.window": 2048, "launches.time_tiles.threads": 512},
    "time tiles 8 steps": {"launches.time_tiles.steps": 8},
    "time tiles 128 steps": {"launches.time_tiles.steps": 128},
    "time tiles 128 threads": {"launches.time_tiles.threads": 128},
    "time tiles 512 threads": {"launches.time_tiles.threads": 512},
    "time tiles 256 cells 128 threads": {"launches.time_tiles.window": 256, "launches.time_tiles.threads": 128},
    "time tiles 1024 cells 128 steps": {"launches.time_tiles.window": 1024, "launches.time_tiles.steps": 128},
    "time tiles 2 steps": {"launches.time_tiles.steps": 2},
    "time tiles 128 cells 128 threads": {"launches.time_tiles.window": 128, "launches.time_tiles.threads": 128},
    "time tiles 4 steps": {"launches.time_tiles.steps": 4},
    "time tiles 512 cells 512 threads": {"launches.time_tiles.window": 512, "launches.time_tiles.threads": 512},
    "time tiles 512 cells 64 steps": {"launches.time_tiles.window": 512, "launches.time_tiles.steps": 64},
    "time tiles 512 cells 512 threads 64 steps": {"launches.time_tiles.window": 512, "launches.time_tiles.threads": 512,
                                                  "launches.time_tiles.steps": 64},
    "time tiles 32x64 plane": {"launches.time_tiles.plane": (32, 64)},
    "time tiles 48x64 plane": {"launches.time_tiles.plane": (48, 64)},
    "time tiles 24x128 plane": {"launches.time_tiles.plane": (24, 128)},
    "time tiles 24x128 plane 4 steps": {"launches.time_tiles.plane": (24, 128), "launches.time_tiles.steps": 4},
    "time tiles 512 threads 2-d": {"launches.time_tiles.threads": 512},
    "time tiles unrolled": {"launches.time_tiles.unrolled": True},
    "time tiles unrolled 32 threads": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 32},
    "time tiles unrolled 64 threads": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 64},
    "time tiles unrolled 128 threads": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 128},
    "time tiles unrolled 512 threads": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 512},
    "time tiles unrolled 32 threads 512 cells": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 32,
                                                 "launches.time_tiles.window": 512},
    "time tiles unrolled 32 threads 128 cells": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 32,
                                                 "launches.time_tiles.window": 128},
    "time tiles unrolled 32 threads 512 cells 64 steps": {"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 32,
                                                          "launches.time_tiles.window": 512, "launches.time_tiles.steps": 64},
    "time tiles 32 threads": {"launches.time_tiles.threads": 32},
    "time tiles unrolled 32x128 plane": {"launches.time_tiles.unrolled": True, "launches.time_tiles.plane": (32, 128)},
    "skewed shuffle": {"wavefront.skewed.shuffle": True},
    "time tiles not unrolled": {"launches.time_tiles.unrolled": False},
    "time tiles unrolled plane": {"launches.time_tiles.unrolled_plane": True},
    "time tiles unrolled plane 32x128": {"launches.time_tiles.unrolled_plane": True, "launches.time_tiles.plane": (32, 128)},
    "no pivot blocks": {"launches.pivot_blocks": None},
    "pivot blocks of 16": {"launches.pivot_blocks.size": 16},
    "pivot blocks of 32": {"launches.pivot_blocks.size": 32},
    "pivot blocks of 64": {"launches.pivot_blocks.size": 64},
    "pivot blocks 256 threads": {"launches.pivot_blocks.threads": 256},
    "pivot blocks diagonal in global": {"launches.pivot_blocks.shared": False},
    "pivot blocks no panels": {"launches.pivot_blocks.panels": False, "launches.pivot_blocks.cells": (1, 1)},
    "pivot blocks one cell": {"launches.pivot_blocks.cells": (1, 1)},
    "pivot blocks 4x4 cells": {"launches.pivot_blocks.cells": (4, 4)},
    "pivot blocks lanes": {"launches.pivot_blocks.lanes": 4},
}


def verify(job):
    """One kernel's variants, one after the other in one process: its suite is drawn once."""
    name, variants, dataset, seed = job
    k = read_kernel(_source(name))
    out = []
    for label, source in variants:
        ev = ladder(k, source, backend=BACKEND, dataset=dataset, seed=seed, bench=False, reuse_suite=True)
        regs = "/".join(f"{f.get('registers')}r{f.get('shared_bytes', 0) // 1024}K"
                        for f in (ev.build or {}).get("kernels", {}).values())
        out.append((name, label, ev.accepted, ev.max_error, f"{ev.reason or ''} [{regs}]"))
    return out


def _source(name: str) -> Path:
    """A PolyBench kernel's name, or the path of any kernel file (a C kernel or a spec)."""
    if Path(name).is_file():
        return Path(name)
    found = next(ROOT.glob(f"corpora/polybench/**/{name}/{name}.c"), None)
    if found is None:
        sys.exit(f"{name}: no such kernel in corpora/polybench")
    return found


def main(names: list[str]) -> int:
    dataset, rounds = os.environ.get("DATASET", "LARGE").upper(), int(os.environ.get("ROUNDS", "3"))
    seed, reps = int(os.environ.get("SEED", "20261130")), config.load().verify_bench_reps
    chosen = [v.strip() for v in os.environ["VARIANTS"].split(",")] if os.environ.get("VARIANTS") else list(VARIANTS)
    sources = {}                                       # (kernel, variant) -> candidate source
    for name in names or KERNELS:
        k, seen = read_kernel(_source(name)), set()
        for label in chosen:
            text = generate(k, PolyOptions.load(VARIANTS[label], f"variant {label!r}"))
            digest = hashlib.sha256(text.encode()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                sources[name, label] = text
    verdicts = {}
    with cf.ProcessPoolExecutor(int(os.environ.get("JOBS", "8"))) as pool:
        jobs = [(n, [(l, s) for (m, l), s in sources.items() if m == n], dataset, seed) for n in names or KERNELS]
        for name, label, ok, err, why in (v for done in pool.map(verify, jobs) for v in done):
            verdicts[name, label] = ok
            print(f"verify {name:12s} {label:18s} {'accepted' if ok else 'REJECTED'}"
                  f" max error {err if err is not None else '-'} of the bound {why}", flush=True)
    if BACKEND != "gpu":
        return 0 if all(verdicts.values()) else 1
    print(f"\n{'kernel':12s} {'variant':18s} {'median ms':>10s} {'rounds min-max':>19s} {'TF/s':>6s} {'ratio':>6s}"
          f"   ({rounds} rounds of {reps} reps, {dataset}, seed {seed})", flush=True)
    for name in names or KERNELS:
        k = read_kernel(_source(name))
        labels = [l for l in chosen if verdicts.get((name, l))]
        if not labels:
            continue
        suite = build_suite(k, seed, dataset=dataset, backend="gpu", points=0)
        case = suite.of("full")[0]
        flops = counts(analyze(k), case.sizes).flops
        start = {a.name: poison(a.dtype, array_shape(a, case.sizes)) for a in k.arrays if a.intent == "out"}
        builds = {l: build_candidate(k, sources[name, l], "gpu") for l in labels}
        medians = {l: [] for l in labels}
        for _ in range(rounds):
            for l in labels:
                r = run_candidate(k, builds[l], case.sizes, case.inputs, mode="bench", reps=reps, poison=start,
                                  timeout=max(config.load().timeout, 400 * case.ref_seconds))
                if r.process.ok and r.kernel_ms:
                    medians[l].append(statistics.median(r.kernel_ms))
        first = None
        for l in labels:
            if not medians[l]:
                print(f"{name:12s} {l:18s} {'failed':>10s}", flush=True)
                continue
            ms = statistics.median(medians[l])
            first = first or ms
            print(f"{name:12s} {l:18s} {ms:10.4f} {min(medians[l]):9.4f}-{max(medians[l]):<9.4f} "
                  f"{flops / ms / 1e9:6.2f} {ms / first:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
