"""The poly options search (generators/evolve) with a stand-in for the ladder: which
candidate wins, duplicates, budgets, steering by the rung that failed, the winner's cache.
The real ladder drives it in `t2c gen --evolve` (tests/generators/test_poly_generator.py)."""
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from t2ctest import POLYBENCH
from t2c.frontends.c import read_c
from t2c.generators.evolve import Budget, evolve, options_of
from t2c.generators.evolve.moves import kinds, neighbours, space
from t2c.generators.poly import DEFAULT
from t2c.generators.poly.options import OptionsError, PolyOptions

JACOBI = read_c(POLYBENCH / "stencils/jacobi-1d/jacobi-1d.c")


@dataclass
class Card:                       # the parts of verify.evidence.Evidence the search reads
    accepted: bool
    rung: str | None = None
    reason: str = ""
    timings: dict = field(default_factory=dict)


def timed(rule):
    """A ladder stand-in: every candidate accepted, `rule(source)` its kernel time."""
    seen = []

    def check(source, slower_than=None):
        seen.append(source)
        check.bars.append(slower_than)
        return Card(True, timings={"kernel_ms": {"median": rule(source)}})
    check.seen, check.bars = seen, []
    return check


def test_the_search_keeps_the_fastest_and_checks_each_source_once():
    check = timed(lambda src: 0.5 if "dim3 block(512)" in src else 1.0)
    got = evolve(JACOBI, check, Budget(candidates=40))
    assert got.best.kernel_ms == 0.5 and got.best.move == "grid.block_1d 512"
    assert got.best.options.grid.block_1d == (512,) and "dim3 block(512)" in got.source
    assert len(set(check.seen)) == len(check.seen) == len(got.lineage)      # one check per source
    assert got.duplicates > 0            # a 2-d block shape does not change a 1-d kernel's code
    assert got.stopped == "every neighbour of the best candidate tried"
    record = got.summary()["lineage"][got.best.step]
    assert record["parent"] == 0 and record["options"] == {"grid.block_1d": (512,)}
    assert options_of(json.loads(json.dumps(record))) == got.best.options      # a stored step reads back


def test_a_clearly_slow_candidate_stops_timing_early():
    """Each candidate's bench gets a bar, 1.5x the best median so far (none before the first is
    timed): the bench rung stops timing a candidate whose first repetitions all take longer."""
    check = timed(lambda src: 0.5 if "dim3 block(512)" in src else 1.0)
    got = evolve(JACOBI, check, Budget(candidates=40))
    assert check.bars[0] is None and check.bars[1] == 1.5
    assert check.bars[got.best.step + 1:] and set(check.bars[got.best.step + 1:]) == {0.75}


def test_budgets_stop_the_search():
    got = evolve(JACOBI, timed(lambda src: 1.0), Budget(candidates=3))
    assert len(got.lineage) == 3 and got.stopped == "candidate budget (3) spent"
    got = evolve(JACOBI, timed(lambda src: 1.0), Budget(seconds=1e-9))
    assert len(got.lineage) == 1 and got.stopped.startswith("time budget")


def test_without_timings_the_first_accepted_candidate_ends_it():
    check = lambda src, **_: Card(True)                 # emu: no bench numbers
    got = evolve(JACOBI, check)
    assert len(got.lineage) == 1 and got.best.accepted and "limited to correctness" in got.stopped


def test_a_rejected_candidate_turns_transformations_off_first():
    # a stand-in that rejects the one-block path (say, a miscompiled barrier)
    check = lambda src, **_: (Card(False, "smoke", "output mismatch") if "__syncthreads" in src
                         else Card(True, timings={"kernel_ms": {"median": 1.0}}))
    got = evolve(JACOBI, check, Budget(candidates=30))
    assert not got.lineage[0].accepted and got.best.accepted
    kind = kinds(DEFAULT)
    assert kind[got.lineage[1].move] == "pass"     # fewer transformations first: the safe direction
    moves = [m for m, _ in neighbours(got.lineage[0].options, got.lineage[0].evidence)]
    assert moves[0] == "loops.fuse off" and "sequential on" in moves
    assert [kind[m] for m in moves] == sorted((kind[m] for m in moves), key=["pass", "launch", "memory", "block", "tile"].index)
    assert "sequential on" not in [m for m, _ in neighbours(got.best.options, got.best.evidence)]


def test_the_winner_is_cached_and_checked_again(tmp_path):
    check = timed(lambda src: 0.5 if "dim3 block(512)" in src else 1.0)
    first = evolve(JACOBI, check, Budget(candidates=40), key="k", cache_dir=tmp_path)
    again = timed(lambda src: 0.5 if "dim3 block(512)" in src else 1.0)
    got = evolve(JACOBI, again, key="k", cache_dir=tmp_path)
    assert got.cached and len(again.seen) == 1 and got.best.options == first.best.options
    # a cached winner that fails now is not trusted: the search runs again
    failing = lambda src, **_: (Card(False, "full", "output mismatch") if "dim3 block(512)" in src
                           else Card(True, timings={"kernel_ms": {"median": 1.0}}))
    got = evolve(JACOBI, failing, Budget(candidates=5), key="k", cache_dir=tmp_path)
    assert not got.cached and got.best.accepted and "dim3 block(512)" not in got.source


def test_the_search_space_comes_from_the_option_records():
    """Each searched field's declared values are moves, named by path and value, of their kind;
    a record that is off takes its fields out of the space, and a move never leaves the options
    as they were."""
    moves = {name: (kind, new) for kind, name, new in space(DEFAULT)}
    assert moves["grid.block_1d 512"] == ("block", DEFAULT.replace({"grid.block_1d": (512,)}))
    assert moves["one_block off"] == ("launch", DEFAULT.replace(one_block=None))
    assert moves["wavefront.tile 64"][0] == "launch" and moves["wavefront.tile off"][0] == "pass"
    assert moves["launches.time_tiles off"][0] == "launch" and moves["launches.time_tiles.window 1024"][0] == "block"
    first = [name for kind, name, _ in space(DEFAULT) if kind == "tile"][:2]     # the H200's winners first
    assert first == ["tiles: staging.tensor_cores.async_copies.ring 3, staging.block off", "tiles: blocks_per_sm 2"]
    assert moves[first[0]] == ("tile", DEFAULT.replace({"tiles.staging.tensor_cores.async_copies.ring": 3,
                                                         "tiles.staging.block": None}))
    assert moves["reductions.rows.column_block 32x8"][0] == "memory"
    assert moves["reductions.rows.data_lanes 32"][0] == "memory"
    assert moves["grid.coarsen off"][0] == "block" and moves["grid.coarsen 8"][0] == "block"
    assert moves["grid.preload off"][0] == "block" and moves["grid.narrow off"][0] == "block"
    assert moves["reductions.private off"][0] == "memory" and moves["reductions.private.points 64"][0] == "launch"
    assert moves["reductions.row_joins off"][0] == "pass" and moves["reductions.row_held 2048"][0] == "memory"
    assert moves["grid.rows off"][0] == "memory" and moves["grid.tables off"][0] == "memory"
    assert moves["grid.strips off"][0] == "memory" and moves["grid.strips.ahead off"][0] == "block"
    assert moves["grid.row_registers off"][0] == "memory" and moves["grid.row_registers 32"][0] == "memory"
    assert moves["reductions.row_warps off"][0] == "launch" and moves["reductions.row_warps 1024"][0] == "launch"
    assert moves["sweeps.along 16x64"] == ("launch", DEFAULT.replace({"sweeps.along": (16, 64)}))
    assert moves["launches.pivot_blocks off"][0] == "launch" and moves["launches.pivot_blocks.size 32"][0] == "block"
    assert all(new != DEFAULT for _, new in moves.values()) and len(moves) == 126
    off = {name for _, name, _ in space(DEFAULT.replace({"tiles.staging": None}))}
    assert not any("staging" in name for name in off) and "tiles.registers 2x2" in off


def test_stored_options_with_the_old_flat_names_still_load(tmp_path):
    """A winner cached before the options were records (all 72 flat fields, sentinels included)
    loads as the same options; the search then starts from it, checked again."""
    old = Path(__file__).parent / "samples" / "evolve-cache-flat.json"
    want = DEFAULT.replace({"tiles.staging.block": None, "wavefront.tile": None, "one_block.threads": 512,
                            "tiles.staging.tensor_cores": None})
    assert PolyOptions.load(json.loads(old.read_text()), str(old)) == want
    step = {"step": 3, "options": {"staged_tile": [4, 4], "rect_tile": [0, 0], "merge_launches": False,
                                   "wavefront": False}}          # an old lineage record's changed fields
    assert options_of(step) == DEFAULT.replace({"tiles.staging.tile": (4, 4), "tiles.staging.rect": None,
                                                "launches.merge": None, "wavefront": None})
    (tmp_path / "k.json").write_text(old.read_text())
    check = timed(lambda src: 1.0)
    got = evolve(JACOBI, check, Budget(candidates=1), key="k", cache_dir=tmp_path)
    assert got.cached and got.lineage[0].move == "cached winner" and got.best.options == want


def test_unknown_stored_options_fail_with_a_clear_message():
    with pytest.raises(OptionsError, match=r"evolve\.json: step 2: stage_rings: PolyOptions has no option 'stage_rings'"):
        options_of({"step": 2, "options": {"stage_rings": 3}}, "evolve.json")
    with pytest.raises(OptionsError, match=r"x\.json: tiles\.stagin\.tile: Tiles has no option 'stagin'"):
        PolyOptions.load({"tiles.stagin.tile": [4, 4]}, "x.json")
    with pytest.raises(OptionsError, match="for a record of options"):
        PolyOptions.load({"tiles": 3}, "x.json")
