"""The poly options search (generators/evolve) with a stand-in for the ladder: which
candidate wins, duplicates, budgets, steering by the rung that failed, the winner's cache.
The real ladder drives it in `t2c gen --evolve` (tests/generators/test_poly_generator.py)."""
from dataclasses import dataclass, field

from t2ctest import POLYBENCH
from t2c.frontends.c import read_c
from t2c.generators.evolve import Budget, evolve
from t2c.generators.evolve.moves import MOVES, neighbours

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
    assert got.best.kernel_ms == 0.5 and got.best.move == "block_1d 512"
    assert got.best.options.block_1d == (512,) and "dim3 block(512)" in got.source
    assert len(set(check.seen)) == len(check.seen) == len(got.lineage)      # one check per source
    assert got.duplicates > 0            # a 2-d block shape does not change a 1-d kernel's code
    assert got.stopped == "every neighbour of the best candidate tried"
    record = got.summary()["lineage"][got.best.step]
    assert record["parent"] == 0 and record["options"] == {"block_1d": (512,)}


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
    kinds = [MOVES[s.move][0] for s in got.lineage[1:got.best.step + 1]]
    assert kinds[0] == "pass"            # fewer transformations first: the safe direction
    moves = [m for m, _ in neighbours(got.lineage[0].options, got.lineage[0].evidence)]
    assert moves[0] == "no fusion" and "sequential" in moves
    assert "sequential" not in [m for m, _ in neighbours(got.best.options, got.best.evidence)]


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
