"""The poly generator's options: one frozen record per pass, so that evolution can vary them.

    PolyOptions, DEFAULT;  PolyOptions.load(raw, source) -> PolyOptions

Every field changes only how fast a candidate is, never what it computes. A pass that can be
off is a record field whose `None` is off; values are real values (no sentinels). Each searched
field declares its candidate values by move kind (`option(default, {kind: values})`), from which
evolve/moves.py builds the search space. `load` reads dotted paths, nested records or the flat
names of earlier versions (LEGACY); anything else is an `OptionsError` naming the source and
field. The defaults and the measurements behind them: docs/poly-options.md.
"""
from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field

from ...errors import UserError

#: move kinds (evolve/moves.ORDER ranks them by what limits a candidate)
KINDS = ("block", "launch", "tile", "memory", "pass")


class OptionsError(UserError):
    """Stored or given options that name no field, or a value of the wrong shape."""


def option(default, search: dict | None = None):
    """A field with its default and its candidate values by move kind (KINDS)."""
    assert not search or set(search) <= set(KINDS), search
    if dataclasses.is_dataclass(default):
        return field(default_factory=lambda: default, metadata={"search": search or {}})
    return field(default=default, metadata={"search": search or {}})


@dataclass(frozen=True)
class Strips:
    """A thread's own rows, walked by its loops, through shared memory a strip at a time (strips.py)."""
    threads: int = option(32, {"block": [64, 128]})   # threads per block
    width: int = option(32, {"block": [16, 64]})      # iterations per strip (fewer where the copies pass the static shared memory)
    ahead: bool = option(True, {"block": [False]})   # an input's next strip copied (cp.async) while this one runs


@dataclass(frozen=True)
class Grid:
    """A plain launch's block shape by grid dimensions (mapping.py, cuda.py)."""
    block_1d: tuple[int] = option((256,), {"block": [(128,), (512,)]})
    block_2d: tuple[int, int] = option((32, 8), {"block": [(32, 4), (32, 16), (64, 4)]})      # (x, y)
    block_3d: tuple[int, int, int] = option((32, 4, 2), {"block": [(32, 8, 1)]})
    max_dims: int = 3                                # parallel loops mapped to the grid per launch
    coarsen: int | None = option(4, {"block": [None, 2, 8]})   # a loop-free launch's x indices per thread (forms.coarsened)
    preload: bool = option(True, {"block": [False]})   # a coarsened thread loads its indices' reads first (forms.preloaded)
    narrow: bool = option(True, {"block": [False]})    # coarsen counts 4-byte elements: 16-bit arrays twice as many (forms.coarsened)
    vector: bool = option(True, {"block": [False]})    # a coarsened elementwise thread's indices consecutive, in 16-byte chunks (vector.py)
    transpose: bool = True                           # reads in the other order through shared tiles (transposed.py)
    rows: bool = option(True, {"memory": [False]})   # a thread's own row of an input, read in its loops, through shared memory (slabs.py)
    row_registers: int | None = option(16, {"memory": [None, 32]})   # a staged row's first elements in registers, for loops over the whole row (slabs.Registers)
    tables: bool = option(True, {"memory": [False]})   # an input every thread reads in its loops at cells free of the grid index, copied whole per block to shared memory (slabs.Table)
    strips: Strips | None = option(Strips(), {"memory": [None]})   # rows a thread's loops walk, a strip at a time through shared memory (strips.py)


@dataclass(frozen=True)
class Distribution:
    """Loops split so that each nest gets its own mapping (transform.distribute)."""
    sink_updates: bool = True                        # an update no cut separates moved to its loop's end first


@dataclass(frozen=True)
class Loops:
    """The passes over the reference's loop tree and its program (lower.planned, lower.final_plan)."""
    distribute: Distribution | None = option(Distribution())
    permute: bool = True                             # parallel loops outward in a band
    fuse: bool = option(True, {"pass": [False]})     # nests that share a grid joined again
    contiguous: bool = option(True, {"pass": [False]})      # a band of more parallel loops than grid.max_dims: its contiguous one on the grid (mapping.contiguous_on_grid)
    copy_inputs: bool = option(True, {"pass": [False]})     # input-only reads from a copy, when fewer loops run in order
    expand_private: bool = True                      # an array each host iteration fills: a copy per iteration (expand.py)
    isl_schedule: bool = option(True, {"pass": [False]})    # isl's schedule tree, when fewer loops run in order


@dataclass(frozen=True)
class Skewed:
    """A band of in-place sweeps in skewed tiles, a block per tile walking it in lanes (wavetiles.SkewWave)."""
    lanes: int = option(32, {"block": [64]})          # tile extent along the lanes' coordinate: threads per block
    walk: int = option(64, {"launch": [32, 128]})     # tile extent along the innermost coordinate
    outer: int = option(2, {"launch": [4, 8]})        # tile extent along the time coordinate of a 3-d band
    window: bool = option(True, {"memory": [False]})  # a lane's reads along its walk kept in registers, one new cell a step per row
    shuffle: bool = option(False, {"memory": [True]})  # ... the cell lane l - 1 wrote the step before taken from it by a shuffle (measured mixed)


@dataclass(frozen=True)
class Wavefront:
    """Carried bands skewed into host waves of parallel work (transform.wavefront, wavetiles.py)."""
    tile: int | None = option(32, {"launch": [64, 16], "pass": [None]})   # T x T tiles; None: a launch per cell diagonal
    skewed: Skewed | None = option(Skewed(), {"pass": [None]})   # bands whose tiles need a skew, or of 3 loops; None: a launch per cell diagonal


@dataclass(frozen=True)
class Merge:
    """Consecutive independent launches as one (merge.py)."""
    reductions: bool = True                          # row and column reductions too


@dataclass(frozen=True)
class TimeTiles:
    """A host loop of 1-d or 2-d stencil launches as overlapped time tiles, several iterations a launch (timetiles.py)."""
    steps: int = option(32, {"launch": [8, 128]})   # iterations a launch runs at most (fewer where the halo passes a quarter of the window)
    window: int = option(256, {"block": [512, 1024]})   # cells of each written 1-d array a block holds in shared memory
    plane: tuple[int, int] = option((32, 64), {"block": [(48, 64), (24, 128)]})   # rows x columns of each written 2-d array a block holds
    threads: int = option(256, {"block": [32, 128, 512]})   # threads per block (32: one warp, __syncwarp() between launches)
    unrolled: bool = option(True, {"block": [False]})   # 1-d: each thread's cells a fixed count, unrolled (their loads issued together)
    unrolled_plane: bool = option(False, {"block": [True]})   # ... 2-d too


@dataclass(frozen=True)
class Pivots:
    """A host loop of elimination steps in blocks of pivots, a few launches a block (pivotblocks.py)."""
    size: int = option(16, {"block": [32, 64]})     # pivots a block
    threads: int = option(1024, {"block": [256]})   # the diagonal block's threads
    shared: bool = option(True, {"memory": [False]})   # ... its cells in shared memory, where it touches no others
    panels: bool = option(True, {"memory": [False]})   # the other launches' cells with one index in the block through shared memory
    cells: tuple[int, int] = option((2, 4), {"block": [(1, 1), (4, 4)]})   # (x, y): cells a thread holds in the trailing matrix
    lanes: int | None = option(None, {"block": [4]})   # a 1-d phase: a warp per index, its lanes over the rest; warps a block


@dataclass(frozen=True)
class Launches:
    """How launches are issued (merge.py, persistent.py, timetiles.py, cuda.Printer's host code)."""
    merge: Merge | None = option(Merge(), {"pass": [None]})
    programmatic: bool = True                        # a launch in a host loop begins while the one before ends (sm_90)
    persistent: bool = option(False, {"launch": [True]})   # a host loop of grid launches: one cooperative launch (persistent.py)
    time_tiles: TimeTiles | None = option(TimeTiles(), {"launch": [None]})   # a host loop of 1-d or 2-d stencils: iterations per launch in tiles
    pivot_blocks: Pivots | None = option(Pivots(), {"launch": [None]})   # a host loop of eliminations: blocks of pivots


@dataclass(frozen=True)
class Banded:
    """A one-thread order-W recurrence as chunk maps (banded.py)."""
    order: int = 8                                   # W's compile-time maximum; a wider loop stays on one thread
    chunk: int = 64                                  # at least this many elements per chunk
    chunks: int = 8192                               # at most this many chunks (longer chunks beyond)


@dataclass(frozen=True)
class Scans:
    """One-thread recurrences as parallel scans (scan.py, kadane.py, compact.py, banded.py)."""
    block: tuple[int, int] = (256, 4)                # a scan block's (threads, elements per thread); threads a power of 2
    parts: int = 1024                                # at most this many blocks (each takes whole tiles beyond)
    linear: bool = True                              # x[i] = a(i) * x[i-1] + b(i)
    rows: tuple[int, int] | None = (256, 4)          # that recurrence per grid index (along rows): a block each,
                                                     # (threads: whole warps, elements per thread); None: off
    running_max: bool = True                         # a maximum of running sums (Kadane): ordered block tuples
    running_tile: tuple[int, int] = (256, 8)         # its blocks' tile (threads: whole warps, elements per thread)
    compaction: bool = True                          # a top-level `if (P) X[k++] = E` loop: a scan of counts, a scatter
    banded: Banded | None = option(Banded())


@dataclass(frozen=True)
class Private:
    """Atomic updates into a small array: a copy per block in shared memory (private.py)."""
    points: int = option(16, {"launch": [4, 64]})    # grid indices per thread at least (each block's copy added once)


@dataclass(frozen=True)
class Rows:
    """A thread's reduction along a row by lanes of a block, or down columns (reduce.py)."""
    lanes: int = option(128, {"memory": [32, 256]})  # a row's lanes (whole warps dividing the block)
    column_block: tuple[int, int] = option((16, 64), {"memory": [(8, 128), (32, 32), (32, 8)]})   # (indices, lanes)
    data_lanes: int = option(8, {"memory": [4, 32]})  # a row read from arrays (CSR): lanes, a power of 2 up to a warp
    warp_rows: bool = True                           # calls with many rows: a warp per row instead (reduce.warp_rows)


@dataclass(frozen=True)
class Reductions:
    """Reductions run by many threads (reduce.py, phases.py)."""
    partials: int | None = option(1024, {"memory": [4096], "pass": [None]})   # a one-thread fold: at most this many partials
    rows: Rows | None = option(Rows(), {"memory": [None]})
    row_blocks: bool = True                          # a thread's folds then maps along a row: a block per row (phases.py)
    row_joins: bool = option(True, {"pass": [False]})    # a row's folds and the row nest after them that reads them: one nest (lower.row_joined)
    row_held: int | None = option(4096, {"memory": [None, 2048]})   # a row's elements a block keeps in shared memory per array (rows.held_rows)
    row_registers: int | None = option(8, {"memory": [None, 4]})   # a row's elements a thread keeps in registers per array (rows.kept_rows)
    row_warps: int | None = option(256, {"launch": [None, 1024]})   # rows whose loops run at most this many iterations: a warp each (rows.warp_rows)
    private: Private | None = option(Private(), {"memory": [None]})   # atomic updates into a block's copy (private.py)


@dataclass(frozen=True)
class Chunks:
    """A sweep whose loop carries only anti dependences: lanes at a time (sweep._rows)."""
    block: tuple[int, int] = option((4, 128), {"launch": [(8, 64), (2, 256)]})   # (indices, lanes)
    staged: bool = option(True, {"launch": [False]})                             # the sums' reads through shared memory


@dataclass(frozen=True)
class Sweeps:
    """A thread's carried loop around parallel ones: blocks of (indices, lanes) (sweep.py)."""
    block: tuple[int, int] = option((16, 64), {"launch": [(8, 128), (8, 64), (4, 64)]})
    along: tuple[int, int] = option((1, 1024), {"launch": [(1, 512), (4, 256), (16, 64)]})   # lanes on x (Sweep.lanes_x)
    rows: Chunks | None = option(Chunks(), {"launch": [None]})


@dataclass(frozen=True)
class Forwarding:
    """A tiled thread's stored value that a later statement reads: the register (cuda.Printer.tiled_body)."""
    constants: bool = True                           # a stored constant in a rectangle's tile starts the sum's register


@dataclass(frozen=True)
class Registers:
    """Values kept in registers inside a thread (cuda.Printer)."""
    accumulators: bool = option(True, {"memory": [False]})   # a loop's one updated cell
    scalar_replacement: bool = True                  # a cell one iteration writes and the next reads
    contraction: bool = True                         # a local array read only at the cell its iteration wrote
    loads_first: bool = True                         # a tiled thread loads every point's value, then stores
    forward_stores: Forwarding | None = option(Forwarding())


@dataclass(frozen=True)
class Rect:
    """A staged tile whose points fill a rectangle no loop bound moves with (cuda.Printer.rectangle)."""
    tile: tuple[int, int] = (8, 4)                   # points per thread (y, x)
    block: tuple[int, int] = (16, 8)                 # threads per block (x, y)
    ring: int = 3                                    # asynchronous tiles in flight
    unrolled: bool = True                            # each thread's copies a fixed count, unrolled


@dataclass(frozen=True)
class AsyncCopies:
    """Tensor-core tiles copied ahead into a ring in dynamic shared memory (tensor.async_loop)."""
    ring: int = option(2, {"tile": [3]})             # tiles in flight
    ring_bytes: int = 100 * 1024                     # the most a ring takes (two such blocks fit an sm_90 SM)
    unrolled: bool = option(True, {"tile": [False]})            # each thread's copies a fixed count, unrolled
    k_major: bool = True                             # an operand read along k keeps k fastest in its tile
    whole_tiles: bool = option(True, {"tile": [False]})         # a tile inside its loop: fragments without checks
    scale_in_place: bool = option(False, {"tile": [True]})      # an operand's factors applied once in shared memory


@dataclass(frozen=True)
class TensorCores:
    """Staged double products on the fp64 tensor cores (tensor.py; shapes: runtime.target.Target)."""
    m16: bool = True                                 # m16n8k8 where the target has it, m8n8k4 otherwise
    async_copies: AsyncCopies | None = option(AsyncCopies())


@dataclass(frozen=True)
class Staging:
    """A 2-d launch's loop operands through shared memory, a tile of the loop at a time (stage.py)."""
    tile: tuple[int, int] = option((8, 2), {"tile": [(4, 4), (8, 4), (2, 2)]})   # points per thread (y, x)
    block: tuple[int, int] | None = (32, 4)          # threads per block (x, y); None: grid.block_2d
    rect: Rect | None = option(Rect(), {"tile": [None]})
    hulls: bool = True                               # also loops whose bounds move with a grid index
    heavy_first: bool = True                         # ... their blocks numbered so the longest loops start first
    prefetch: bool = option(False, {"tile": [True]})            # the next tile into registers during this one
    depth: int | None = option(None, {"tile": [16, 8]})          # loop values per tile; None: stage.DEPTHS, what fits
    tensor_cores: TensorCores | None = option(TensorCores(), {"tile": [None]})
    float_partials: bool = option(True, {"tile": [False]})     # float terms of a double sum: a float sum per tile


@dataclass(frozen=True)
class Tiles:
    """A launch's thread computing a tile of grid points, its loops jammed (cuda.Printer)."""
    blocks_per_sm: int | None = option(None, {"tile": [2, 3]})   # registers that fit this many blocks (__launch_bounds__)
    staging: Staging | None = option(Staging(), {"tile": [{"tile": (8, 4), "block": (16, 8)}, None]})
    registers: tuple[int, int] | None = option(None, {"tile": [(2, 2), (4, 2), (4, 4)]})   # unstaged: (y, x) points
    batch: bool = True                               # a 3-d launch tiles its y and x, a block per z


@dataclass(frozen=True)
class Resident:
    """A one-block loop's arrays in shared memory where they fit (a second kernel, picked at run time)."""
    locals: bool = True                              # the reference's local arrays too


@dataclass(frozen=True)
class OneBlock:
    """A host loop of small launches as one block with __syncthreads() (oneblock.py)."""
    max_threads: int = option(4096, {"launch": [16384]})        # taken when no launch in the loop needs more
    threads: int | None = option(None, {"launch": [1024, 512, 256]})   # None: 1024, 512 with a block sum
    thread_scalars: bool = True                      # scalars every thread computes alike, in every thread
    fewer_barriers: bool = True                      # no barrier between two independent launches
    resident: Resident | None = option(Resident())
    private_blocks: bool = option(True, {"launch": [False]})    # carried only through a scratch array: a block per iteration
    substitution: str | None = option("chained", {"launch": ["blocked", None]})   # a cell finished per iteration, then the cells past it (substitution.py): "chained" warps or "blocked" in one block


@dataclass(frozen=True)
class PolyOptions:
    """Every pass's record; `replace` sets fields by dotted path, `load` reads stored options."""
    grid: Grid = option(Grid())
    loops: Loops = option(Loops())
    wavefront: Wavefront | None = option(Wavefront(), {"pass": [None]})
    launches: Launches = option(Launches())
    scans: Scans = option(Scans())
    reductions: Reductions = option(Reductions())
    sweeps: Sweeps | None = option(Sweeps(), {"launch": [None]})
    registers: Registers = option(Registers())
    tiles: Tiles = option(Tiles(), {"tile": [          # the tile moves that won on the H200, first
        {"staging.tensor_cores.async_copies.ring": 3, "staging.block": None}, {"blocks_per_sm": 2},
        {"staging.block": None}, {"staging.tensor_cores.async_copies.ring": 3},
        {"staging.tensor_cores.async_copies.unrolled": False},
        {"staging.tile": (8, 4), "staging.block": (16, 8), "staging.tensor_cores.async_copies.ring": 3}]})
    one_block: OneBlock | None = option(OneBlock(), {"launch": [None]})
    networks: bool = True                            # host control around exchange loops (X[i], X[i ^ E]): a launch each
    pool: bool = option(True, {"memory": [False]})   # NAME_device's scratch from the stream-ordered pool (kept between calls), else cudaMalloc
    sequential: bool = option(False, {"pass": [True]})          # one thread for everything (the safe baseline)

    def replace(self, changes: dict | None = None, **fields) -> "PolyOptions":
        """A copy with `fields` (top-level) and `changes` (dotted paths: {"tiles.staging.tile": (4, 4)})."""
        return apply(dataclasses.replace(self, **fields), changes or {})

    def block(self, dims: int) -> tuple[int, ...]:
        return {1: self.grid.block_1d, 2: self.grid.block_2d, 3: self.grid.block_3d}[dims]

    @classmethod
    def load(cls, raw: dict, source: str = "options") -> "PolyOptions":
        """Stored options (module docstring) over the defaults."""
        if not isinstance(raw, dict):
            raise OptionsError(f"{source}: options must be a JSON object, not {type(raw).__name__}")
        top, flat, legacy = {f.name for f in dataclasses.fields(cls)}, {}, {}
        for name, value in raw.items():     # an old flat name, or an old switch of what is a record now
            old = name in LEGACY and (name not in top or isinstance(value, bool) and _record_type(cls, name))
            (legacy if old else flat)[name] = value
        return apply(apply(cls(), flat, source), legacy_changes(legacy, source), source)


# -- paths ----------------------------------------------------------------------------------

@functools.cache
def _hints(cls) -> dict:
    return typing.get_type_hints(cls)


def _record_type(cls, path: str):
    """The record class a dotted path of `cls` names, or None for a plain value."""
    for name in path.split("."):
        hints = _hints(cls)
        if name not in hints:
            return None
        cls = next((t for t in typing.get_args(hints[name]) or (hints[name],) if dataclasses.is_dataclass(t)), None)
        if cls is None:
            return None
    return cls


def _value(kind, value, where: str):
    """A stored value as the field's type: JSON lists as tuples, dicts as records."""
    if isinstance(value, list):
        return tuple(value)
    if kind is None or value is None or isinstance(value, kind):
        if isinstance(value, dict):
            raise OptionsError(f"{where}: a record given for a plain value")
        return value
    if not isinstance(value, dict):
        raise OptionsError(f"{where}: {value!r} for a record of options", hint="give None (off) or its fields")
    return apply(kind(), value, where)


def apply(options, changes: dict, source: str = "options"):
    """`options` with each dotted path of `changes` set; a path through an off record (None)
    turns that record on at its defaults first.  Unknown paths are an OptionsError."""
    for path, value in changes.items():
        options = _set(options, path.split("."), value, f"{source}: {path}")
    return options


def _set(record, names: list[str], value, where: str):
    name, rest = names[0], names[1:]
    fields = {f.name: f for f in dataclasses.fields(record)}
    if name not in fields:
        raise OptionsError(f"{where}: {type(record).__name__} has no option {name!r}",
                           hint=f"its options are {', '.join(fields)} (docs/poly-options.md)")
    kind = _record_type(type(record), name)
    if not rest:
        return dataclasses.replace(record, **{name: _value(kind, value, where)})
    inner = getattr(record, name)
    if kind is None:
        raise OptionsError(f"{where}: {name!r} is a value, not a record of options")
    return dataclasses.replace(record, **{name: _set(inner if inner is not None else kind(), rest, value, where)})


def changes(options, base=None, prefix: str = "") -> dict:
    """The dotted paths where `options` differs from `base` (the defaults), as values or
    records (dicts) that `apply` reads back."""
    base = type(options)() if base is None else base
    out = {}
    for f in dataclasses.fields(options):
        mine, theirs, path = getattr(options, f.name), getattr(base, f.name), prefix + f.name
        if mine == theirs:
            continue
        if dataclasses.is_dataclass(mine) and dataclasses.is_dataclass(theirs):
            out.update(changes(mine, theirs, path + "."))
        else:
            out[path] = dataclasses.asdict(mine) if dataclasses.is_dataclass(mine) else mine
    return out


def leaves(options, prefix: str = ""):
    """(path, field, value, record type or None) of every field of `options` and of its records
    that are on, depth first in declaration order."""
    for f in dataclasses.fields(options):
        value, path = getattr(options, f.name), prefix + f.name
        kind = _record_type(type(options), f.name)
        yield path, f, value, kind
        if value is not None and kind is not None:
            yield from leaves(value, path + ".")


# -- the options before records ---------------------------------------------------------------

def _off_if_false(path):
    return lambda v: {path: None} if v is False else {}


def _none_at(path, off):
    return lambda v: {path: None if (tuple(v) if isinstance(v, list) else v) == off else v}


#: flat name (before issue #34) -> its dotted paths and values, sentinels read as None
LEGACY = {
    **{n: (lambda p: lambda v: {p: v})(p) for n, p in {
        "block_1d": "grid.block_1d", "block_2d": "grid.block_2d", "block_3d": "grid.block_3d",
        "max_grid_dims": "grid.max_dims", "sink_updates": "loops.distribute.sink_updates",
        "permute": "loops.permute", "fuse": "loops.fuse", "copy_inputs": "loops.copy_inputs",
        "expand_private": "loops.expand_private", "isl_schedule": "loops.isl_schedule",
        "merge_reductions": "launches.merge.reductions", "programmatic_launches": "launches.programmatic",
        "scan_block": "scans.block", "scan_parts": "scans.parts", "parallel_scans": "scans.linear",
        "running_max": "scans.running_max", "stream_compaction": "scans.compaction",
        "banded_order": "scans.banded.order", "banded_chunk": "scans.banded.chunk",
        "banded_chunks": "scans.banded.chunks", "reduction_blocks": "reductions.partials",
        "row_lanes": "reductions.rows.lanes", "column_block": "reductions.rows.column_block",
        "row_blocks": "reductions.row_blocks", "sweep_block": "sweeps.block",
        "chunk_block": "sweeps.rows.block", "sweep_stage": "sweeps.rows.staged",
        "register_accumulators": "registers.accumulators", "scalar_replacement": "registers.scalar_replacement",
        "loads_first": "registers.loads_first", "hold_constants": "registers.forward_stores.constants",
        "batch_tiles": "tiles.batch", "rect_block": "tiles.staging.rect.block",
        "rect_stages": "tiles.staging.rect.ring", "rect_unrolled": "tiles.staging.rect.unrolled",
        "staged_hulls": "tiles.staging.hulls", "heavy_first": "tiles.staging.heavy_first",
        "staged_prefetch": "tiles.staging.prefetch", "mma_m16": "tiles.staging.tensor_cores.m16",
        "async_stages": "tiles.staging.tensor_cores.async_copies.ring",
        "unrolled_copies": "tiles.staging.tensor_cores.async_copies.unrolled",
        "k_major_tiles": "tiles.staging.tensor_cores.async_copies.k_major",
        "whole_tiles": "tiles.staging.tensor_cores.async_copies.whole_tiles",
        "scale_in_place": "tiles.staging.tensor_cores.async_copies.scale_in_place",
        "one_block_max": "one_block.max_threads", "thread_scalars": "one_block.thread_scalars",
        "fewer_barriers": "one_block.fewer_barriers", "resident_locals": "one_block.resident.locals",
        "private_blocks": "one_block.private_blocks", "exchange_networks": "networks",
        "sequential": "sequential"}.items()},
    **{n: _off_if_false(p) for n, p in {
        "distribute": "loops.distribute", "merge_launches": "launches.merge", "wavefront": "wavefront",
        "parallel_reductions": "reductions.partials", "banded_scans": "scans.banded",
        "warp_rows": "reductions.rows", "column_sweeps": "sweeps", "sweep_rows": "sweeps.rows",
        "forward_stores": "registers.forward_stores", "tensor_cores": "tiles.staging.tensor_cores",
        "async_copies": "tiles.staging.tensor_cores.async_copies", "one_block_loops": "one_block",
        "resident_arrays": "one_block.resident"}.items()},
    "wave_tile": _none_at("wavefront.tile", 0),
    "register_tile": _none_at("tiles.registers", (1, 1)),
    "staged_tile": lambda v: {"tiles.staging": None} if tuple(v) == (1, 1) else {"tiles.staging.tile": v},
    "staged_block": _none_at("tiles.staging.block", (0, 0)),
    "rect_tile": lambda v: {"tiles.staging.rect": None} if tuple(v) == (0, 0) else {"tiles.staging.rect.tile": v},
    "stage_depth": _none_at("tiles.staging.depth", 0),
    "tile_blocks_per_sm": _none_at("tiles.blocks_per_sm", 0),
    "one_block_threads": _none_at("one_block.threads", 0),
}


def legacy_changes(raw: dict, source: str) -> dict:
    """Flat options as dotted paths: values first, then the passes turned off (a sub-option of
    an off pass is dropped with it)."""
    out = {}
    for name, value in raw.items():
        if name not in LEGACY:
            raise OptionsError(f"{source}: unknown option {name!r}",
                               hint="options are records now (docs/poly-options.md); search again without this file")
        out.update(LEGACY[name](value))
    values = {p: v for p, v in out.items() if v is not None}
    offs = {p: v for p, v in out.items() if v is None}
    return {p: v for p, v in values.items() if not any(p.startswith(o + ".") for o in offs)} | offs


DEFAULT = PolyOptions()
