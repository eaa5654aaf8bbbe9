"""Tiled wavefronts: a 2-d dynamic program as a launch per diagonal of tiles, not of cells.

    tiled(analysis, plan, options) -> Plan  (lower.final_plan)

Takes a plan whose top-level `wave` host loop runs one launch over a diagonal of cells, or one
thread running two nested loops; gives a `TileWave` record: a host loop over diagonals of T x T
tiles (`wavefront.tile`), a block of T threads per tile, its cells by diagonals between
barriers. Taken when each statement fills one rectangle bounded by the sizes, its scalars live
on the host or in a cell's register, and every dependence points to a cell no smaller in either
index (`Model.tile_order`); else the plan is unchanged. docs/poly.md, "Tiled wavefronts".
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ...analysis import Analysis, Loop, Stmt
from .ctext import WORD, extent_text, names_used
from .mapping import HostLoop, Launch, Plan
from .options import PolyOptions
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


def tiled(an: Analysis, plan: Plan, options: PolyOptions) -> Plan:
    """The plan with each top-level band that allows it in tiles (module docstring)."""
    if options.wavefront.tile is None:
        return plan
    items, launches = list(plan.items), list(plan.launches)
    for pos, it in enumerate(items):
        old = _band_launch(it)
        tw = old and tile_wave_of(an, plan, old, options.wavefront.tile)
        if not tw:
            continue
        ta, tb = tw.count(tw.rows), tw.count(tw.cols)
        last = f"{ta} + {tb} - 2"
        loop = Loop(TILE_WAVE, "0", last, 1, [], init=f"{TILE_WAVE} = 0", cond=f"{TILE_WAVE} <= {last}",
                    next=f"{TILE_WAVE}++")
        new = Launch([], {}, list(tw.body), [loop], tiles=tw)
        items[pos] = HostLoop(loop, [new])
        launches[next(n for n, l in enumerate(launches) if l is old)] = new
        was = "diagonal of cells" if isinstance(it, HostLoop) else "thread running the whole band"
        plan.notes.append(f"Tiles: the dependences of the ({tw.rows[0]}, {tw.cols[0]}) band never point to "
                          f"a smaller {tw.rows[0]} or {tw.cols[0]}, so it runs in {tw.size} x {tw.size} tiles: "
                          f"a launch per diagonal of tiles instead of one per {was}.")
    return dataclasses.replace(plan, items=items, launches=launches)


def _band_launch(item) -> Launch | None:
    """The launch of a top-level plan item that is a 2-d band of statements: a wavefront (a host
    loop `wave` around one launch whose threads run statements) or one thread running two
    perfectly nested loops of statements (a band whose private scalars kept it from skewing)."""
    if isinstance(item, HostLoop) and item.loop.var == WAVE and len(item.items) == 1 \
            and isinstance(item.items[0], Launch):
        launch = item.items[0]
        return launch if len(launch.grid) == 1 and launch.host_loops == [item.loop] else None
    if isinstance(item, Launch) and not item.grid and not item.host_loops and len(item.body) == 1:
        outer = item.body[0]
        inner = outer.body[0] if isinstance(outer, Loop) and len(outer.body) == 1 else None
        if isinstance(inner, Loop) and not (outer.time or outer.derived or inner.time or inner.derived):
            return item
    return None


def tile_wave_of(an: Analysis, plan: Plan, launch: Launch, size: int) -> TileWave | None:
    """The launch's band as tiles of `size`, or None where the module's conditions fail."""
    nodes = launch.statements()
    if not nodes:
        return None
    stmts = [an.program.statement(n) for n in nodes]
    names = [s.name for s in stmts]
    loops = stmts[0].loops
    if len(loops) != 2 or any(s.loops != loops for s in stmts):
        return None
    for (s, _), w in an.web_of.items():         # a scalar lives in one cell's thread, or on the host
        where = plan.storage.get(w)
        if s in names and where != "host" and (where != "local" or not set(loops) <= set(an.webs[w].private)):
            return None
    taken = set(an.program.kernel.params) | set(an.program.locals) | set(loops)
    if TILE_WAVE in taken or any(t.startswith("poly_") for t in taken):
        return None
    bounds = an.model.band_bounds(names, (), loops)
    if bounds is None or loops[0] in WORD.findall(" ".join(bounds[1])):
        return None                                  # not a rectangle: a triangle's rows move
    if not all(an.model.fills_box(s, bounds) for s in names):
        return None
    if not an.model.tile_order(an.all_deps, names):
        return None
    (a, b), ((alo, ahi), (blo, bhi)) = loops, bounds
    return TileWave((a, alo, ahi), (b, blo, bhi), size, tuple(Stmt(s) for s in stmts))


# -- printing -------------------------------------------------------------------------------

def kernel(p, launch: Launch) -> tuple[str, list[str]]:
    """The tile kernel (p: the cuda Printer) and its argument names."""
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
    tw: TileWave = launch.tiles
    first = f"poly_max(0, {TILE_WAVE} - ({tw.count(tw.cols)} - 1))"
    last = f"poly_min({tw.count(tw.rows)} - 1, {TILE_WAVE})"
    return [f"{indent}{{",
            f"{indent}  const int poly_tiles = {last} - {first} + 1;   /* on this diagonal, a block each */",
            f"{indent}  if (poly_tiles > 0)",
            f"{indent}    {p.launch_line(launch.name, ('poly_tiles', str(tw.size)), ', '.join(args), launch.host_loops)}",
            f"{indent}}}"]


def describe(launch: Launch) -> str:
    tw: TileWave = launch.tiles
    a, b, t = tw.rows[0], tw.cols[0], tw.size
    return (f"{launch.name}: a block of {t} threads per {t} x {t} tile of ({a}, {b}) on one diagonal of tiles; "
            f"thread t takes the tile's row t, the tile's cells run by their diagonals with __syncthreads() "
            f"between two. Launched once per host iteration of {TILE_WAVE}.")


def _plus(text: str) -> str:
    """`text + ` to prefix a sum with, nothing for 0."""
    t = text.strip()
    return "" if t == "0" else (f"{t} + " if re.fullmatch(r"\w+", t) else f"({t}) + ")
