"""Correct hand-written candidates are accepted: no false rejects, under fresh secret seeds.

The quick test runs every candidate under one fresh secret seed; the `slow` sweep under
20 (the seed of a failure is in the message, to replay with `t2c verify --seed`)."""
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from t2ctest import corpus_sources
from t2c.frontends.c import read_c
from t2c.verify.device import emu_available

HERE = Path(__file__).parent
CANDIDATES = sorted(HERE.glob("*.cu"))
pytestmark = pytest.mark.skipif(not emu_available(), reason="needs the emu backend (t2c.runtime.emu)")


def kernel_of(cu: Path):
    name = cu.stem.removeprefix("kernel_").replace("_", "-")
    return read_c(next(p for p in corpus_sources() if p.parent.name == name))


def _verify(args):
    from t2c.verify.ladder import ladder
    cu, seed = args
    ev = ladder(kernel_of(cu), cu, backend="emu", seed=seed, bench=False)
    return cu.name, ev


def _sweep(seeds_per_candidate: int):
    from t2c.verify.synth import new_seed
    jobs = [(cu, new_seed()) for cu in CANDIDATES for _ in range(seeds_per_candidate)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(_verify, jobs))
    bad = [f"{name} seed {ev.seed}: {ev.rung}: {ev.reason}: {ev.feedback}" for name, ev in results
           if not ev.accepted]
    assert not bad, "false rejects:\n" + "\n".join(bad)
    return results


def test_there_are_enough_candidates():
    assert len(CANDIDATES) >= 6
    assert all(kernel_of(cu).name == cu.stem for cu in CANDIDATES)


def test_correct_candidates_are_accepted():
    _sweep(1)


@pytest.mark.full
def test_correct_candidates_are_accepted_under_20_secret_seeds():
    results = _sweep(20)
    assert len({ev.seed for _, ev in results}) == len(results)


def test_a_persistent_candidate_without_its_grid_sync_is_rejected():
    """kernel_jacobi_1d.cu runs every time step in one cooperative launch; its twin without the
    grid.sync() between the sweeps reads neighbours that another thread or block has not written
    yet, and the emu ladder must not accept it."""
    from t2c.verify.ladder import ladder
    from t2c.verify.synth import new_seed
    racy = HERE / "race" / "jacobi_1d_persistent_no_sync.cu"
    ev = ladder(kernel_of(HERE / "kernel_jacobi_1d.cu"), racy, backend="emu", seed=new_seed(), bench=False)
    assert not ev.accepted and ev.rung in ("smoke", "random", "races"), (ev.seed, ev.rung, ev.reason, ev.feedback)
