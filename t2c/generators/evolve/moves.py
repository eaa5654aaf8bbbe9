"""The moves of the options search, and which to try first given what limits a candidate.

A move is a named change of `PolyOptions`.  `limit(evidence)` reads the bench rung's
figures (achieved GB/s and TF/s against the GPU's measured ceilings, from
`runtime/ceilings.py`): `memory` when the bytes are the larger share of the roofline,
`compute` when the flops are, `launch` when both are far below (under 5%: the time goes to
launches, synchronization or serial work), `unknown` without figures.  A rejected candidate
(a t2c bug, never expected) tries the moves that turn transformations off first.
"""
from __future__ import annotations

from ..poly import PolyOptions

#: name -> (kind, change); kinds: block shape, launches, register tiles (several grid points
#: per thread, loops jammed; staged: their operands through shared memory), memory, passes (turning one off)
MOVES = {
    "block_1d 128": ("block", {"block_1d": (128,)}),
    "block_1d 512": ("block", {"block_1d": (512,)}),
    "block_2d 32x4": ("block", {"block_2d": (32, 4)}),
    "block_2d 32x16": ("block", {"block_2d": (32, 16)}),
    "block_2d 64x4": ("block", {"block_2d": (64, 4)}),
    "block_3d 32x8x1": ("block", {"block_3d": (32, 8, 1)}),
    "one block up to 16384 threads": ("launch", {"one_block_max": 16384}),
    "one block of 1024 threads": ("launch", {"one_block_threads": 1024}),
    "one block of 512 threads": ("launch", {"one_block_threads": 512}),
    "one block of 256 threads": ("launch", {"one_block_threads": 256}),
    "no one-block loops": ("launch", {"one_block_loops": False}),
    "wave tiles of 64": ("launch", {"wave_tile": 64}),
    "wave tiles of 16": ("launch", {"wave_tile": 16}),
    "no block per iteration": ("launch", {"private_blocks": False}),
    "sweep blocks 8x128": ("launch", {"sweep_block": (8, 128)}),
    "sweep blocks 8x64": ("launch", {"sweep_block": (8, 64)}),
    "sweep blocks 4x64": ("launch", {"sweep_block": (4, 64)}),
    "no column sweeps": ("launch", {"column_sweeps": False}),
    "sweep rows split, not in chunks": ("launch", {"sweep_rows": False}),
    "chunk blocks 8x64": ("launch", {"chunk_block": (8, 64)}),
    "chunk blocks 2x256": ("launch", {"chunk_block": (2, 256)}),
    "chunked sums not staged": ("launch", {"sweep_stage": False}),
    # the tile moves that won somewhere on the H200 first (reports/h200-polybench-large-13/
    # probe.txt, L2 evicted, against the defaults' 32x4 blocks: syrk 0.0818 -> 0.0698 ms in blocks of
    # 32x8 with a ring of 3; report 11: syrk 0.114 -> 0.097 with registers for 2 blocks; report 9:
    # symm 0.298 -> 0.222 with a ring of 3)
    "a ring of 3 in staged blocks of 32x8": ("tile", {"async_stages": 3, "staged_block": (0, 0)}),
    "registers for 2 tiled blocks per SM": ("tile", {"tile_blocks_per_sm": 2}),
    "staged blocks of 32x8": ("tile", {"staged_block": (0, 0)}),
    "a ring of 3 async tiles": ("tile", {"async_stages": 3}),
    "copies in loops": ("tile", {"unrolled_copies": False}),
    "staged tile 8x4 in blocks of 16x8, a ring of 3": ("tile", {"staged_tile": (8, 4), "staged_block": (16, 8),
                                                               "async_stages": 3}),
    "rectangles tiled as the rest": ("tile", {"rect_tile": (0, 0)}),
    "fragments checked in every tile": ("tile", {"whole_tiles": False}),
    "staged tile 4x4": ("tile", {"staged_tile": (4, 4)}),
    "staged tile 8x4": ("tile", {"staged_tile": (8, 4)}),
    "staged tile 8x4 in blocks of 16x8": ("tile", {"staged_tile": (8, 4), "staged_block": (16, 8)}),
    "staged tile 2x2": ("tile", {"staged_tile": (2, 2)}),
    "operand factors applied in shared memory": ("tile", {"scale_in_place": True}),
    "no shared staging": ("tile", {"staged_tile": (1, 1)}),
    "prefetch the next staged tile": ("tile", {"staged_prefetch": True}),
    "staged tiles of 16 loop values": ("tile", {"stage_depth": 16}),
    "staged tiles of 8 loop values": ("tile", {"stage_depth": 8}),
    "no tensor cores": ("tile", {"tensor_cores": False}),
    "registers for 3 tiled blocks per SM": ("tile", {"tile_blocks_per_sm": 3}),
    "register tile 2x2": ("tile", {"register_tile": (2, 2)}),
    "register tile 4x2": ("tile", {"register_tile": (4, 2)}),
    "register tile 4x4": ("tile", {"register_tile": (4, 4)}),
    "no register accumulators": ("memory", {"register_accumulators": False}),
    "no warp rows": ("memory", {"warp_rows": False}),
    "a warp per row": ("memory", {"row_lanes": 32}),
    "rows of 256 lanes": ("memory", {"row_lanes": 256}),
    "column blocks 8x128": ("memory", {"column_block": (8, 128)}),
    "column blocks 32x32": ("memory", {"column_block": (32, 32)}),
    "column blocks 32x8": ("memory", {"column_block": (32, 8)}),
    "more reduction partials": ("memory", {"reduction_blocks": 4096}),
    "no fusion": ("pass", {"fuse": False}),
    "launches apart": ("pass", {"merge_launches": False}),
    "no copies of inputs": ("pass", {"copy_inputs": False}),
    "no isl schedule": ("pass", {"isl_schedule": False}),
    "no wavefront": ("pass", {"wavefront": False}),
    "a launch per cell diagonal": ("pass", {"wave_tile": 0}),
    "no parallel reductions": ("pass", {"parallel_reductions": False}),
    "sequential": ("pass", {"sequential": True}),
}

#: which kinds of moves to try first, by what limits the best candidate
ORDER = {"launch": ("launch", "block", "tile", "memory", "pass"),
         "memory": ("memory", "tile", "block", "launch", "pass"),
         "compute": ("tile", "block", "memory", "launch", "pass"),
         "unknown": ("block", "tile", "launch", "memory", "pass"),
         "rejected": ("pass", "launch", "memory", "block", "tile")}


def limit(evidence) -> str:
    """What bounds an accepted candidate, from its bench figures (see the module docstring)."""
    from ...runtime.ceilings import cached
    from ...verify.evidence import rates
    r, ceil = rates((evidence.timings if evidence else {}) or {}), cached()
    if not r or not ceil or not ceil.get("gbps") or not ceil.get("tflops"):
        return "unknown"
    mem, comp = r["gbps"] / ceil["gbps"], r["tflops"] / ceil["tflops"]
    if max(mem, comp) < 0.05:
        return "launch"
    return "memory" if mem >= comp else "compute"


def neighbours(options: PolyOptions, evidence) -> list[tuple[str, PolyOptions]]:
    """(move, options) for every move that changes `options`, the limit's kinds first;
    `sequential` only for a rejected candidate (the last resort, always correct)."""
    accepted = bool(evidence and evidence.accepted)
    order = ORDER[limit(evidence) if accepted else "rejected"]
    out = []
    for kind in order:
        for name, (k, change) in MOVES.items():
            if k != kind or (name == "sequential" and accepted):
                continue
            new = options.replace(**change)
            if new != options:
                out.append((name, new))
    return out
