"""The poly generator's options: plain frozen data, so that evolution can vary them.

Every field changes only how fast a candidate is, never what it computes: each
transformation they enable is still checked against the exact dependences.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class PolyOptions:
    block_1d: tuple[int] = (256,)            # threads per block, one grid dimension
    block_2d: tuple[int, int] = (32, 8)      # (x, y)
    block_3d: tuple[int, int, int] = (32, 4, 2)
    max_grid_dims: int = 3                   # parallel loops mapped to the grid per launch
    distribute: bool = True                  # split loops so that each nest gets its mapping
    sink_updates: bool = True                # ... after moving an update no cut could separate to the
                                             # end of its loop, where it then splits off (symm)
    permute: bool = True                     # move parallel loops outward in a band
    fuse: bool = True                        # re-join nests that share a grid
    merge_launches: bool = True              # consecutive independent plain launches as one (merge.py)
    merge_reductions: bool = True            # ... and consecutive independent row/column reductions
    expand_private: bool = True              # an array each host iteration fills and reads back: a copy
                                             # per iteration, the host loops then grid dimensions (expand.py)
    programmatic_launches: bool = True       # launches in host loops may begin while the one before ends
                                             # (cudaLaunchKernelEx; each such kernel waits first, sm_90)
    wavefront: bool = True                   # skew carried 2-d bands into host waves of parallel work
    wave_tile: int = 32                      # ... a wave's 2-d rectangle whose dependences never point to a
                                             # smaller index: T x T tiles, a launch per diagonal of tiles,
                                             # a block per tile, its cells by diagonals (wavetiles.py; 0: a
                                             # launch per diagonal of cells)
    parallel_reductions: bool = True         # a one-thread sum/max/... loop: block partials, then one block
    parallel_scans: bool = True              # a one-thread x[i] = a(i) * x[i-1] + b(i) loop: a scan (scan.py)
    scan_block: tuple[int, int] = (256, 4)   # ... its blocks' (threads, elements per thread); threads a power of 2
    scan_parts: int = 1024                   # ... at most this many blocks (each takes whole tiles beyond)
    banded_scans: bool = True                # a one-thread order-W recurrence (s = b; s -= c * x[i-d] for d <= W;
                                             # x[i] = s; or x[i] = E affine in x[i-1..i-W]): chunk maps (banded.py)
    banded_order: int = 8                    # ... W's compile-time maximum (a larger W: the loop on one thread)
    banded_chunk: int = 64                   # ... at least this many elements per chunk
    banded_chunks: int = 8192                # ... at most this many chunks (longer chunks beyond)
    running_max: bool = True                 # a one-thread Kadane loop (a maximum of running sums): ordered
                                             # block tuples, then one block (kadane.py)
    stream_compaction: bool = True           # a top-level `if (P) X[k++] = E` loop the model refuses: a scan
                                             # of P's counts, then a scatter, in scan_block's shape (compact.py)
    exchange_networks: bool = True           # host control the model refuses (doubling, halving loops) around
                                             # loops of disjoint cells (X[i], X[i ^ E]): a launch each (network.py)
    warp_rows: bool = True                   # a thread's reduction along a row: a warp per row instead
    row_blocks: bool = True                  # a thread's loops along a row (folds, then maps): a block per row (phases.py)
    row_lanes: int = 128                     # ... or this many lanes (whole warps in a 256-thread block,
                                             # combined in shared memory in a fixed order); on the H200
                                             # a 32 MB matrix's row sums: 15.5 us, a warp each 21.4
    column_block: tuple[int, int] = (16, 64) # a reduction down columns: (indices, lanes) per block; on
                                             # the H200 16 x 64 read atax's matrix 2.9x faster than 32 x 8
    column_sweeps: bool = True               # a thread's carried loop around parallel ones (symm, trmm):
    sweep_block: tuple[int, int] = (16, 64)  # ... blocks of (indices, lanes) instead (sweep.py); on the
                                             # H200 at LARGE: trmm 1.39 ms, 8 x 64 1.56, symm 4.22 (4.24)
    sweep_rows: bool = True                  # ... whose loop carries only anti dependences (trmm): its
                                             # iterations a lane each, lanes at a time (sweep._rows)
    chunk_block: tuple[int, int] = (4, 128)  # ... in blocks of (indices, lanes): 128 iterations at a time
    sweep_stage: bool = True                 # ... their sums' reads through shared memory (sweep._staged)
    reduction_blocks: int = 1024             # at most this many partials (a grid-stride loop beyond)
    register_accumulators: bool = True       # a loop's one updated cell in a register (gemm's C[i][j])
    scalar_replacement: bool = True          # a cell one iteration writes and the next reads: a register too
    loads_first: bool = True                 # a tiled thread's statements around its loops that store
                                             # an element from loaded values: every point's value first,
                                             # then the stores (symm's C[i][j] = beta * C[i][j] + ...:
                                             # its loads one point at a time, behind each store: on the
                                             # H200 at LARGE symm 0.2136 -> 0.1470 ms side by side)
    forward_stores: bool = True              # ... and a value one of them stores that a later one reads
                                             # is that register (trmm's B[i][j] = alpha * B[i][j] after
                                             # its sum; a store the next one overwrites goes)
    hold_constants: bool = True              # ... also a stored constant in a rectangle's tile (2mm's
                                             # tmp[i][j] = 0.0, doitgen's sum): the sum's register starts
                                             # from it (H200: doitgen 1.16x, 3mm 1.07x, 2mm 1.04x)
    batch_tiles: bool = True                 # a 3-d launch tiles its y and x, a block per z (its batch)
    register_tile: tuple[int, int] = (1, 1)  # a 2-d launch's thread: (y, x) grid points, its loops jammed
    staged_tile: tuple[int, int] = (8, 2)    # the same where its loops' operands can go through shared
                                             # memory (stage.py; the gemm family), which then they do; on
                                             # the H200 at LARGE 8 x 2 took 5 of the 7 tensor-core kernels
                                             # 3-40% less time than 4 x 4 (with 2 async stages)
    staged_block: tuple[int, int] = (32, 4)  # ... their blocks' threads (x, y) ((0, 0): block_2d); with
                                             # unrolled copies, on the H200 at LARGE (probe, L2 evicted,
                                             # against 32 x 8 and copies in loops): symm 0.1468 -> 0.1017
                                             # ms, syr2k 0.1530 -> 0.1131, trmm 0.0779 -> 0.0648,
                                             # covariance 0.1194 -> 0.0940, correlation 0.2966 -> 0.2676,
                                             # syrk 0.0855 -> 0.0818 (0.0698 in 32 x 8 with a ring of 3)
    rect_tile: tuple[int, int] = (8, 4)      # ... where the points fill a rectangle and no loop's bounds
    rect_block: tuple[int, int] = (16, 8)    # move with them (gemm, 2mm, 3mm; not syrk's triangle nor
    rect_stages: int = 3                     # symm's k < i): this tile, block and ring instead ((0, 0):
    rect_unrolled: bool = True               # none), and their copies unrolled (unrolled_copies below);
                                             # on the H200 at LARGE, L2 evicted: gemm 0.117 ms against
                                             # 0.177 with the others', 2mm 0.142 / 0.199, 3mm 0.248 /
                                             # 0.319; syrk, syr2k, symm, trmm were 3-25% slower with them
    staged_hulls: bool = True                # ... also loops whose bounds move with a grid index: over
                                             # the block's hull, operands 0 outside a point's own bounds
    heavy_first: bool = True                 # ... those blocks numbered so that the longest loops start first
    staged_prefetch: bool = False            # ... the next tile into registers during this one's compute
    stage_depth: int = 0                     # loop values per shared tile (0: stage.DEPTHS, what fits)
    tile_blocks_per_sm: int = 0              # a tiled launch asks ptxas for registers that fit this
                                             # many blocks on an SM (__launch_bounds__; 0: its choice)
    tensor_cores: bool = True                # staged products in double on the fp64 tensor cores
                                             # (mma.sync m8n8k4: sm_80 or newer; stage.mma_pairs)
    async_copies: bool = True                # ... their tiles copied ahead asynchronously
    unrolled_copies: bool = True             # ... each thread's copies a fixed count, unrolled, offsets
                                             # computed once (no loop from its thread number; ~14 instead
                                             # of 22 instructions a copy in gemm's SASS; staged_block's
                                             # figures are both together)
    k_major_tiles: bool = True               # ... an operand read along k (A[i][k]) kept k fastest in
                                             # its shared tile, [i][k], so that a warp's copies store to
                                             # consecutive banks ([k][i] took 8 banks for 32 copies): on
                                             # the H200 at LARGE, verified side by side, gemm 0.1247 ->
                                             # 0.1170 ms, syrk 0.1021 -> 0.0892, syr2k 0.1933 -> 0.1582
    whole_tiles: bool = True                 # ... a tile wholly inside its loop: fragments without checks
    async_stages: int = 2                    # ... into a ring of this many tiles (dynamic shared memory;
                                             # 3 took all but syr2k 2-8% more time on the H200)
    scale_in_place: bool = False             # ... an operand's factors (gemm's alpha) applied to the
                                             # copied tile in shared memory, not to every fragment: fewer
                                             # registers (gemm 126 -> 114), but on the H200 gemm 0.198 ->
                                             # 0.277 ms, syrk 0.115 -> 0.143 (a pass before the barrier)
    mma_m16: bool = True                     # ... 16 x 8 x 8 at a time (m16n8k8 on sm_90: twice m8n8k4's rate)
    one_block_loops: bool = True             # a host loop of small launches: one block, __syncthreads()
    one_block_threads: int = 0               # that block's threads (0: 1024, 512 with a block sum)
    one_block_max: int = 4096                # ... taken when no launch in the loop needs more threads
    thread_scalars: bool = True              # ... its scalars in every thread where one-thread launches
                                             # only compute scalars (durbin's alpha, beta: all threads alike)
    fewer_barriers: bool = True              # ... no __syncthreads() between two independent launches (isl)
    resident_arrays: bool = True             # ... its arrays in shared memory where they fit (a second
                                             # kernel; the host picks it by their size at run time)
    resident_locals: bool = True             # ... with the reference's local arrays it uses (durbin's z)
    private_blocks: bool = True              # such a loop carried only through a scratch array: a block
                                             # per iteration, each with its own copy in shared memory
    copy_inputs: bool = True                 # reads that only see an array's values at the call read a
                                             # copy of it, when that runs fewer loops in order (trmm)
    isl_schedule: bool = True                # isl's scheduler's tree when it runs fewer loops in order
    sequential: bool = False                 # one thread for everything (the safe baseline)

    def replace(self, **changes) -> "PolyOptions":
        return dataclasses.replace(self, **changes)

    def block(self, dims: int) -> tuple[int, ...]:
        return {1: self.block_1d, 2: self.block_2d, 3: self.block_3d}[dims]


DEFAULT = PolyOptions()
