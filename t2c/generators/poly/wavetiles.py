"""Tiled wavefronts: a carried band as a launch per diagonal of tiles, not of cells.

    tiled(analysis, plan, options) -> Plan  (lower.final_plan)

Takes a plan whose top-level `wave` host loop runs one launch over a diagonal of cells, or one
thread running two nested loops. Each statement must fill one box bounded by the sizes, its
scalars live on the host or in a cell's register. Gives, where the dependences allow:
- `TileWave` (`wavefront.tile`): a 2-d band whose every dependence points to a cell no smaller
  in either index (`Model.tile_order`): a host loop over diagonals of T x T tiles, a block of T
  threads per tile, its cells by diagonals between barriers;
- `SkewWave` (`wavefront.skewed`): a band of 2 or 3 loops (in-place sweeps inside a time loop:
  Gauss-Seidel, SOR) whose dependences point forward in every coordinate once the loops are
  skewed (`Model.tile_skew`): tiles of the skewed coordinates, a host loop over their diagonals,
  a block per tile whose threads (lanes) walk the tile's other coordinates one step apart.
Else the plan is unchanged. docs/poly.md, "Tiled wavefronts".
"""
from __future__ import annotations

import copy
import dataclasses
import re
from dataclasses import dataclass
from math import prod

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...analysis.model import base_and_subscripts, parse_expr
from ...ir.csyntax import cprint
from .ctext import WORD, array_refs, extent_text, names_used, offset_text, rewrite, stored_value, var_offset
from .mapping import HostLoop, Launch, Plan
from .options import PolyOptions, Skewed
from ...runtime.target import SM90, Target
from .transform import WAVE

TILE_WAVE = "tile_wave"


@dataclass(frozen=True)
class TileWave:
    rows: tuple[str, str, str]       # (a, first, last): C text over the sizes; a tile's row per thread
    cols: tuple[str, str, str]       # (b, first, last)
    size: int                        # T: a tile is T x T cells, a block T threads
    body: tuple                      # Stmt: the program's statements (no isl placement), a cell's order

    def count(self, side) -> str:
        """C text: the number of tiles along `side` (rows or cols), 0 when it is empty."""
        _, lo, hi = side
        return f"poly_max(0, ({extent_text(hi, lo)} + {self.size - 1}) / {self.size})"


@dataclass(frozen=True)
class Window:
    """A lane's registers for the reads `A[rest][j + e]`, e = first..last, of one statement along its
    walk (j: the band's last loop): a step loads only `A[rest][j + last]`, the others move down one;
    the register that next holds the cell the statement writes takes the written value."""
    array: str
    dtype: str
    rest: tuple                      # the subscripts before the last, C text
    first: int
    last: int
    written: int | None              # e of the cell the statement writes in this row, None: another row or array
    lane: bool = False               # A[rest][j + last] is the cell lane l - 1 wrote the step before: shuffled up
    hole: bool = False               # the written cell, first < e < last, is not read: no register

    @property
    def offsets(self) -> list[int]:
        """The e a register holds."""
        return [e for e in range(self.first, self.last + 1) if not (self.hole and e == self.written)]


@dataclass(frozen=True)
class SkewWave:
    loops: tuple                     # (var, first, last) per loop of the band, outermost first: C text over the sizes
    skew: tuple                      # rows of ints: coordinate k = sum of skew[k][m] * loop m (unit lower-triangular)
    sizes: tuple                     # a tile's extent along each coordinate; sizes[-2]: lanes, the block's threads
    body: tuple                      # Stmt: the program's statements (no isl placement), a cell's order
    windows: tuple = ()              # Window: the one statement's reads kept in registers along the walk
    most_y: int = 65535              # the most blocks on grid.y (Target.max_grid_yz): a block strides over the rest

    @property
    def lanes(self) -> int:
        return self.sizes[-2]

    @property
    def walk(self) -> int:
        """The cells each lane walks in a tile: the product of the other coordinates' extents."""
        return prod(self.sizes) // self.lanes

    def low(self, k: int) -> str:
        """C text: the least value of coordinate k over the band (the skew's entries are >= 0)."""
        return _combination(self.skew[k], [lo for _, lo, _ in self.loops])

    def count(self, k: int) -> str:
        """C text: the number of tiles along coordinate k."""
        high = _combination(self.skew[k], [hi for _, _, hi in self.loops])
        return f"poly_max(0, ({extent_text(high, self.low(k))} + {self.sizes[k] - 1}) / {self.sizes[k]})"

    def first(self, k: int) -> str:
        """C text: the least tile index along coordinate k (k > 0) on diagonal TILE_WAVE."""
        others = " - ".join(f"({self.count(m)} - 1)" for m in range(len(self.sizes)) if m != k)
        return f"poly_max(0, {TILE_WAVE} - {others})"

    def blocks(self, k: int) -> str:
        """C text: the tiles along coordinate k (k > 0) on diagonal TILE_WAVE: a block each."""
        return f"poly_min({self.count(k)} - 1, {TILE_WAVE}) - {self.first(k)} + 1"


def tiled(an: Analysis, plan: Plan, options: PolyOptions, target: Target = SM90) -> Plan:
    """The plan with each top-level band that allows it in tiles (module docstring)."""
    wf = options.wavefront
    if wf.tile is None and wf.skewed is None:
        return plan
    items, launches = list(plan.items), list(plan.launches)
    for pos, it in enumerate(items):
        old = _band_launch(it)
        tw = old and wf.tile and tile_wave_of(an, plan, old, wf.tile)
        sw = not tw and old and wf.skewed and isinstance(it, HostLoop) and skew_wave_of(an, plan, old, wf.skewed, target)
        if isinstance(sw, str):
            plan.notes.append(f"Skewed tiles: the wavefront's band keeps a launch per diagonal of cells: {sw}.")
            sw = None
        if not (tw or sw):
            continue
        if tw:
            ta, tb = tw.count(tw.rows), tw.count(tw.cols)
            last = f"{ta} + {tb} - 2"
        else:
            last = " + ".join(sw.count(k) for k in range(len(sw.sizes))) + f" - {len(sw.sizes)}"
        loop = Loop(TILE_WAVE, "0", last, 1, [], init=f"{TILE_WAVE} = 0", cond=f"{TILE_WAVE} <= {last}",
                    next=f"{TILE_WAVE}++")
        new = Launch([], {}, list((tw or sw).body), [loop], tiles=tw or sw)
        items[pos] = HostLoop(loop, [new])
        launches[next(n for n, l in enumerate(launches) if l is old)] = new
        if sw:
            names = ", ".join(v for v, _, _ in sw.loops)
            plan.notes.append(f"Skewed tiles: the dependences of the ({names}) band point forward in every "
                              f"coordinate of ({_coordinates(sw)}), so it runs in tiles of "
                              f"{' x '.join(map(str, sw.sizes))} of those: a launch per diagonal of tiles "
                              f"instead of one per diagonal of cells.")
            continue
        was = "diagonal of cells" if isinstance(it, HostLoop) else "thread running the whole band"
        plan.notes.append(f"Tiles: the dependences of the ({tw.rows[0]}, {tw.cols[0]}) band never point to "
                          f"a smaller {tw.rows[0]} or {tw.cols[0]}, so it runs in {tw.size} x {tw.size} tiles: "
                          f"a launch per diagonal of tiles instead of one per {was}.")
    return dataclasses.replace(plan, items=items, launches=launches)


def _band_launch(item) -> Launch | None:
    """The launch of a top-level plan item that is a band of statements: a wavefront (a host
    loop `wave` around one launch whose threads run statements) or one thread running two
    perfectly nested loops of statements (a band whose private scalars kept it from skewing)."""
    if isinstance(item, HostLoop) and item.loop.var == WAVE and len(item.items) == 1 \
            and isinstance(item.items[0], Launch):
        launch = item.items[0]
        return launch if launch.grid and launch.host_loops == [item.loop] else None
    if isinstance(item, Launch) and not item.grid and not item.host_loops and len(item.body) == 1:
        outer = item.body[0]
        inner = outer.body[0] if isinstance(outer, Loop) and len(outer.body) == 1 else None
        if isinstance(inner, Loop) and not (outer.time or outer.derived or inner.time or inner.derived):
            return item
    return None


def _band(an: Analysis, plan: Plan, launch: Launch) -> tuple | str:
    """(statements, their names, their loops, each loop's (first, last)) of a launch whose
    statements share their loops, fill a box over the sizes and keep their scalars on the host
    or in one cell's thread; else why not."""
    nodes = launch.statements()
    if not nodes:
        return "it runs no statement"
    stmts = [an.program.statement(n) for n in nodes]
    names = [s.name for s in stmts]
    loops = stmts[0].loops
    if any(s.loops != loops for s in stmts):
        return "its statements lie in different loops"
    for (s, _), w in an.web_of.items():         # a scalar lives in one cell's thread, or on the host
        where = plan.storage.get(w)
        if s in names and where != "host" and (where != "local" or not set(loops) <= set(an.webs[w].private)):
            return f"a scalar ({w}) lives across its cells"
    taken = set(an.program.kernel.params) | set(an.program.locals) | set(loops)
    if TILE_WAVE in taken or any(t.startswith("poly_") for t in taken):
        return f"the kernel names {TILE_WAVE} or poly_*"
    bounds = an.model.band_bounds(names, (), loops)
    if bounds is None or set(loops) & set(WORD.findall(" ".join(b for lh in bounds for b in lh))):
        return "its loops' bounds move with other loops (not a box)"
    if not all(an.model.fills_box(s, bounds) for s in names):
        return "a statement does not fill its loops' box"
    return stmts, names, loops, bounds


def tile_wave_of(an: Analysis, plan: Plan, launch: Launch, size: int) -> TileWave | None:
    """The launch's band as tiles of `size`, or None where the module's conditions fail."""
    band = _band(an, plan, launch)
    if isinstance(band, str) or len(band[2]) != 2 or not an.model.tile_order(an.all_deps, band[1]):
        return None
    stmts, _, (a, b), ((alo, ahi), (blo, bhi)) = band
    return TileWave((a, alo, ahi), (b, blo, bhi), size, tuple(Stmt(s) for s in stmts))


def skew_wave_of(an: Analysis, plan: Plan, launch: Launch, sk: Skewed, target: Target = SM90) -> SkewWave | str:
    """The launch's band of 2 or 3 loops as skewed tiles, or why not (module docstring)."""
    band = _band(an, plan, launch)
    if isinstance(band, str):
        return band
    stmts, names, loops, bounds = band
    if len(loops) not in (2, 3):
        return f"a band of {len(loops)} loops (2 or 3 are taken)"
    skew = an.model.tile_skew(an.all_deps, names)
    if skew is None:
        return "no skew (entries up to 3) points every dependence forward"
    if len(loops) == 2 and skew == ((1, 0), (0, 1)):
        return "a 2-loop band that needs no skew (T x T tiles, `wavefront.tile`, take it)"
    sizes = (sk.lanes, sk.walk) if len(loops) == 2 else (sk.outer, sk.lanes, sk.walk)
    windows = _windows(an, stmts, loops, skew[-1][-2]) if sk.window else ()
    if not sk.shuffle:
        windows = tuple(dataclasses.replace(w, lane=False) for w in windows)
    return SkewWave(tuple((v, lo, hi) for v, (lo, hi) in zip(loops, bounds)), skew, sizes,
                    tuple(Stmt(s) for s in stmts), windows, target.max_grid_yz)


#: the most registers a lane's windows take
MOST_REGISTERS = 24


def _windows(an: Analysis, stmts, loops, slant: int) -> tuple:
    """The windows of a band of one assignment to an array cell (no scalars): its reads grouped by
    array and subscripts before the last, each group's last subscripts `j + e` for consecutive e.
    Sound because a lane's consecutive cells differ by 1 in j alone, two cells of one step are
    independent (no other lane writes a cell this one reads between its steps), and the lane's
    own write is forwarded.  Of the written array, rows named by other variables stay in memory.
    Lane l - 1's cell of the step before is lane l's, one less in the lanes' loop and `slant`
    (the skew's last entry before its diagonal) more in j: a group's new cell that is that cell
    takes lane l - 1's value (`Window.lane`)."""
    j, lanes = loops[-1], loops[-2]
    if len(stmts) != 1 or any(s == stmts[0].name for s, _ in an.web_of):
        return ()
    value, target = stored_value(stmts[0].node)
    if target is None:
        return ()
    _, wsubs = base_and_subscripts(target)
    wlast = var_offset(wsubs[-1], j)
    if wlast is None or any(j in WORD.findall(cprint(x)) for x in wsubs[:-1]):
        return ()
    groups: dict = {}
    for ref in array_refs(value):
        base, subs = base_and_subscripts(ref)
        e = var_offset(subs[-1], j)
        rest = tuple(cprint(x) for x in subs[:-1])
        if e is None or any(j in WORD.findall(x) or "[" in x for x in rest) or not isinstance(base, c_ast.ID):
            continue
        groups.setdefault((base.name, rest), set()).add(e)
    dtypes = {a.name: a.dtype for a in an.program.kernel.arrays}
    wname, wrest = _name(target), tuple(cprint(x) for x in wsubs[:-1])
    out = []
    for (name, rest), offsets in groups.items():
        hole = (name, rest) == (wname, wrest) and min(offsets) < wlast < max(offsets) and wlast not in offsets
        if hole:
            offsets.add(wlast)                        # the written cell: no other lane's in between
        if sorted(offsets) != list(range(min(offsets), max(offsets) + 1)) or name not in dtypes:
            continue                                  # a hole: its cell may change under another lane
        if name == wname and rest != wrest and not _apart(rest, wrest):
            continue                                  # may name the written cell another way
        lane = name == wname and max(offsets) == wlast + slant and _behind(rest, wrest, lanes)
        out.append(Window(name, dtypes[name], rest, min(offsets), max(offsets),
                          wlast if (name, rest) == (wname, wrest) else None, lane, hole))
    if sum(len(w.offsets) for w in out) > MOST_REGISTERS:
        return ()
    return tuple(out)


def _name(ref) -> str:
    base, _ = base_and_subscripts(ref)
    return base.name if isinstance(base, c_ast.ID) else ""


def _behind(rest, wrest, var: str) -> bool:
    """Whether subscripts `rest` are `wrest` with `var` one less: the same where `var` is not named."""
    for a, b in zip(rest, wrest):
        db = var_offset(parse_expr(b), var)
        if db is None:
            if a != b or var in WORD.findall(b):
                return False
        elif var_offset(parse_expr(a), var) != db - 1:
            return False
    return True


def _apart(rest, wrest) -> bool:
    """Whether subscripts `rest` name other cells than `wrest` always: in some place both are the
    same variable plus different integers."""
    for a, b in zip(rest, wrest):
        var = WORD.findall(b)
        if var and not var[0][0].isdigit():
            da, db = var_offset(parse_expr(a), var[0]), var_offset(parse_expr(b), var[0])
            if da is not None and db is not None and da != db:
                return True
    return False


def _combination(row, texts) -> str:
    """C text: the sum of row[m] * texts[m]."""
    const = sum(c * int(t) for c, t in zip(row, texts) if re.fullmatch(r"-?\d+", t.strip()))
    terms = [(t if c == 1 else f"{c} * {t}") if re.fullmatch(r"\w+", t) else (f"({t})" if c == 1 else f"{c} * ({t})")
             for c, t in zip(row, texts) if c and not re.fullmatch(r"-?\d+", t.strip())]
    return " + ".join(terms + [str(const)] * bool(const or not terms))


def _coordinates(sw: SkewWave) -> str:
    """The skewed coordinates in words: `t, t + i, 2 * t + i + j`."""
    names = [v for v, _, _ in sw.loops]
    return ", ".join(" + ".join(v if c == 1 else f"{c} * {v}" for c, v in zip(row, names) if c) for row in sw.skew)


# -- printing -------------------------------------------------------------------------------

def kernel(p, launch: Launch) -> tuple[str, list[str]]:
    """The tile kernel (p: the cuda Printer) and its argument names."""
    if isinstance(launch.tiles, SkewWave):
        return _skew_kernel(p, launch, launch.tiles)
    tw: TileWave = launch.tiles
    (a, alo, ahi), (b, blo, bhi), t = tw.rows, tw.cols, tw.size
    names = {s.stmt.name for s in tw.body}
    locals_ = {w: p.web_type[w] for (s, _), w in p.an.web_of.items()
               if s in names and p.plan.storage[w] == "local"}
    body = [f"  const int poly_first = poly_max(0, {TILE_WAVE} - ({tw.count(tw.cols)} - 1));   /* the diagonal's first tile row */",
            f"  const int poly_ta = poly_first + (int)blockIdx.x, poly_tb = {TILE_WAVE} - poly_ta;   /* this block's tile */",
            "  const int poly_t = (int)threadIdx.x;",
            *(f"  {ty} {w};" for w, ty in locals_.items()),
            f"  for (int poly_step = 0; poly_step < {2 * t - 1}; poly_step++)   /* the tile's diagonals */",
            "  {",
            f"    const int {a} = {_plus(alo)}poly_ta * {t} + poly_t;",
            f"    const int {b} = {_plus(blo)}poly_tb * {t} + poly_step - poly_t;",
            f"    if (poly_step >= poly_t && poly_step - poly_t < {t} && {a} <= {ahi} && {b} <= {bhi})",
            "    {",
            *p.render_nodes(list(tw.body), "      "),
            "    }",
            "    __syncthreads();",
            "  }"]
    text = "\n".join(body)
    args = p.kernel_args(launch, names_used(text))
    params = ", ".join(p.param_decl(x, launch) for x in args)
    return "\n".join([f"/* {describe(launch)} */",
                      f"__global__ void __launch_bounds__({t}) {launch.name}({params})", "{",
                      *p.waits(launch.name, launch.host_loops, params), text, "}"]), args


def launch_code(p, launch: Launch, args: list[str], indent: str) -> list[str]:
    if isinstance(launch.tiles, SkewWave):
        return _skew_launch_code(p, launch, launch.tiles, args, indent)
    tw: TileWave = launch.tiles
    first = f"poly_max(0, {TILE_WAVE} - ({tw.count(tw.cols)} - 1))"
    last = f"poly_min({tw.count(tw.rows)} - 1, {TILE_WAVE})"
    return [f"{indent}{{",
            f"{indent}  const int poly_tiles = {last} - {first} + 1;   /* on this diagonal, a block each */",
            f"{indent}  if (poly_tiles > 0)",
            f"{indent}    {p.launch_line(launch.name, ('poly_tiles', str(tw.size)), ', '.join(args), launch.host_loops)}",
            f"{indent}}}"]


def describe(launch: Launch) -> str:
    if isinstance(launch.tiles, SkewWave):
        sw = launch.tiles
        walked = ", ".join(v for k, (v, _, _) in enumerate(sw.loops) if k != len(sw.loops) - 2)
        return (f"{launch.name}: a block of {sw.lanes} threads per tile of {' x '.join(map(str, sw.sizes))} cells "
                f"of ({_coordinates(sw)}) on one diagonal of tiles; thread l takes the tile's "
                f"{sw.loops[-2][0]} coordinate l and walks its ({walked}) coordinates, one step behind "
                f"thread l - 1, with a barrier between two steps. Launched once per host iteration of {TILE_WAVE}.")
    tw: TileWave = launch.tiles
    a, b, t = tw.rows[0], tw.cols[0], tw.size
    return (f"{launch.name}: a block of {t} threads per {t} x {t} tile of ({a}, {b}) on one diagonal of tiles; "
            f"thread t takes the tile's row t, the tile's cells run by their diagonals with __syncthreads() "
            f"between two. Launched once per host iteration of {TILE_WAVE}.")


def _plus(text: str) -> str:
    """`text + ` to prefix a sum with, nothing for 0."""
    t = text.strip()
    return "" if t == "0" else (f"{t} + " if re.fullmatch(r"\w+", t) else f"({t}) + ")


def _skew_kernel(p, launch: Launch, sw: SkewWave) -> tuple[str, list[str]]:
    """The skewed tile kernel: the block's tile on this diagonal, its bounds test, the walk."""
    d, lane = len(sw.sizes), len(sw.sizes) - 2
    skip = "continue" if d == 3 else "return"             # 3 loops: a block strides over its tiles on y
    body = [f"  const int poly_x{d - 1} = {sw.first(d - 1)} + (int)blockIdx.x;"]
    rest = " - ".join(f"poly_x{k}" for k in range(1, d))
    body += [f"  const int poly_x0 = {TILE_WAVE} - {rest};   /* the tile's first coordinate: its diagonal */",
             f"  if (poly_x0 < 0 || poly_x0 > {sw.count(0)} - 1)",
             f"    {skip};"]
    body += [f"  const int poly_o{k} = {_plus(sw.low(k))}poly_x{k} * {sw.sizes[k]};" for k in range(d)]
    body.append("  /* each loop's range over the tile (an interval around it): none, no cell */")
    empty = []
    for k, (_, lo, hi) in enumerate(sw.loops):
        below = [(c, m) for m, c in enumerate(sw.skew[k][:k]) if c]
        least = "".join(f" - {_times(c, f'poly_hi{m}')}" for c, m in below)
        most = "".join(f" - {_times(c, f'poly_lo{m}')}" for c, m in below)
        body.append(f"  const int poly_lo{k} = poly_max({lo}, poly_o{k}{least}), "
                    f"poly_hi{k} = poly_min({hi}, poly_o{k} + {sw.sizes[k] - 1}{most});")
        empty.append(f"poly_lo{k} > poly_hi{k}")
    body += [f"  if ({' || '.join(empty)})", f"    {skip};"]
    names = {s.stmt.name for s in sw.body}
    body += [f"  {p.web_type[w]} {w};" for (s, _), w in p.an.web_of.items()
             if s in names and p.plan.storage[w] == "local"]
    walked = [k for k in range(d) if k != lane]
    place, scale = {}, 1
    for k in reversed(walked):                       # the walk's index: the last coordinate fastest
        step = f"poly_r / {scale}" if scale > 1 else "poly_r"
        place[k] = f"{step} % {sw.sizes[k]}" if k != walked[0] else step
        scale *= sw.sizes[k]
    place[lane] = "(int)threadIdx.x"
    barrier = "__syncwarp();" if sw.lanes == 32 else "__syncthreads();"
    inside = " && ".join(f"{v} >= {lo} && {v} <= {hi}" for v, lo, hi in sw.loops)
    body += [f"  for (int poly_step = 0; poly_step < {sw.walk + sw.lanes - 1}; poly_step++)   /* lane l: its cell poly_step - l */",
             "  {",
             "    const int poly_r = poly_step - (int)threadIdx.x;",
             f"    if (poly_r >= 0 && poly_r < {sw.walk})",
             "    {"]
    for k, (v, _, _) in enumerate(sw.loops):
        back = "".join(f" - {_times(c, sw.loops[m][0])}" for m, c in enumerate(sw.skew[k][:k]) if c)
        body.append(f"      const int {v} = poly_o{k} + {place[k]}{back};")
    if sw.windows:
        warm = f"{place[d - 1]} > 0 && {sw.loops[-1][0]} - 1 >= {sw.loops[-1][1]}"
        at = next(n for n, line in enumerate(body) if line.startswith("  for (int poly_step"))
        dtype = _written_dtype(p, sw)
        body[at:at] = [*(f"  {w.dtype} {_register(n, e)};" for n, w in enumerate(sw.windows)
                         for e in w.offsets),
                       f"  {dtype} poly_v = 0;   /* the value this lane wrote last */",
                       *(["  int poly_did = 0;   /* ... at the step before */"] if _shuffled(sw) else [])]
        if _shuffled(sw):
            at = next(n for n, line in enumerate(body) if line.startswith("    const int poly_r"))
            body[at + 1:at + 1] = [
                f"    const {dtype} poly_up = __shfl_up_sync(0xffffffffu, poly_v, 1);   /* lane l - 1's value of the step before */",
                "    const bool poly_up_ok = __shfl_up_sync(0xffffffffu, poly_did, 1) && (threadIdx.x & 31) != 0;",
                "    poly_did = 0;"]
        cell = [*_window_lines(p, sw, warm, "        ")]
    else:
        cell = p.render_nodes(list(sw.body), "        ")
    body += [f"      if ({inside})", "      {", *cell, "      }",
             "    }", f"    {barrier}", "  }"]
    if d == 3:
        body = [f"  for (int poly_x1 = {sw.first(1)} + (int)blockIdx.y; poly_x1 <= poly_min({sw.count(1)} - 1, {TILE_WAVE}); "
                f"poly_x1 += (int)gridDim.y)   /* at most {sw.most_y} blocks on y */",
                "  {", *("  " + line for line in body), "  }"]
    text = "\n".join(body)
    args = p.kernel_args(launch, names_used(text))
    params = ", ".join(p.param_decl(x, launch) for x in args)
    return "\n".join([f"/* {describe(launch)} */",
                      f"__global__ void __launch_bounds__({sw.lanes}) {launch.name}({params})", "{",
                      *p.waits(launch.name, launch.host_loops, params), text, "}"]), args


def _skew_launch_code(p, launch: Launch, sw: SkewWave, args: list[str], indent: str) -> list[str]:
    d = len(sw.sizes)
    counts = [f"poly_blocks{k}" for k in range(d - 1, 0, -1)]     # x, then y
    grid = counts[0] if d == 2 else f"dim3({counts[0]}, poly_cap({counts[1]}, {sw.most_y}))"
    return [f"{indent}{{",
            *(f"{indent}  const int poly_blocks{k} = {sw.blocks(k)};   /* tiles along coordinate {k} on this diagonal */"
              for k in range(d - 1, 0, -1)),
            f"{indent}  if ({' && '.join(f'{c} > 0' for c in counts)})",
            f"{indent}    {p.launch_line(launch.name, (grid, str(sw.lanes)), ', '.join(args), launch.host_loops)}",
            f"{indent}}}"]


def _times(c: int, text: str) -> str:
    return text if c == 1 else f"{c} * {text}"


def _register(n: int, e: int) -> str:
    return f"poly_w{n}_{'m' if e < 0 else 'p'}{abs(e)}"


def _window_lines(p, sw: SkewWave, warm: str, indent: str) -> list[str]:
    """A cell's statement on its windows: the cells a cold lane lacks, each row's new cell, the
    value, its store, the registers moved down one (the written value into the one it reaches)."""
    stmt, j = sw.body[0].stmt, sw.loops[-1][0]
    names = p.names_for(stmt.name)
    value, target = stored_value(stmt.node)
    regs = {(w.array, w.rest, e): _register(n, e) for n, w in enumerate(sw.windows) for e in w.offsets}

    def key(ref):
        base, subs = base_and_subscripts(ref)
        e = var_offset(subs[-1], j)
        return (base.name, tuple(cprint(x) for x in subs[:-1]), e) if isinstance(base, c_ast.ID) else None

    def load(w: Window, e: int) -> list[str]:
        ref = c_ast.ID(w.array)
        for sub in (*w.rest, offset_text(j, e)):
            ref = c_ast.ArrayRef(ref, parse_expr(sub))
        return p.r.statement(c_ast.Assignment("=", c_ast.ID(regs[(w.array, w.rest, e)]), ref), names, indent + "  ")

    cold = [line for w in sw.windows for e in w.offsets[:-1] for line in load(w, e)]
    out = [f"{indent}if (!({warm}))   /* this lane's last cell was not the one before: fill the windows */",
           f"{indent}{{", *cold, f"{indent}}}"] if cold else []
    for w in sw.windows:
        lines = [line[2:] for line in load(w, w.last)]
        if w.lane:                                    # lane l - 1 wrote it the step before
            reg = regs[(w.array, w.rest, w.last)]
            lines[0] = lines[0].replace(f"{reg} = ", f"{reg} = poly_up_ok ? poly_up : ", 1)
        out += lines
    read = rewrite(copy.deepcopy(value), lambda n: c_ast.ID(regs[key(n)])
                   if isinstance(n, c_ast.ArrayRef) and key(n) in regs else None)
    out += [*p.r.statement(c_ast.Assignment("=", c_ast.ID("poly_v"), read), names, indent),
            *p.r.statement(c_ast.Assignment("=", copy.deepcopy(target), c_ast.ID("poly_v")), names, indent)]
    out += [f"{indent}poly_did = 1;"] if _shuffled(sw) else []
    for n, w in enumerate(sw.windows):
        for e in w.offsets[:-1]:
            src = "poly_v" if w.written == e + 1 else _register(n, e + 1)
            out.append(f"{indent}{_register(n, e)} = {src};")
    return out


def _shuffled(sw: SkewWave) -> bool:
    return any(w.lane for w in sw.windows)


def _written_dtype(p, sw: SkewWave) -> str:
    return next(a.dtype for a in p.k.arrays if a.name == _name(stored_value(sw.body[0].stmt.node)[1]))
