"""GPU slots (chain.gpu_slot): shared holders share a GPU, an exclusive holder (a bench's timed
run) has it alone.  Threads stand for worker processes (flock locks open files, so two opens in
one process exclude each other as two processes do); `n_gpus` fakes the GPU count."""
import fcntl
import threading
import time
from contextlib import contextmanager

import pytest

from t2c.engine import chain
from t2c.engine.chain import Options, _held, gpu_slot, run_kernel
from t2c.engine.run import _gpu_use
from t2c.engine.stages import _slot

WAIT = 10.0                    # seconds a step may take before the test calls it stuck


@pytest.fixture(autouse=True)
def _keep_env(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "unset-by-test")   # gpu_slot sets it per holder


class Holder:
    """A thread that takes a slot, says which, and keeps it until told to let go."""

    def __init__(self, lock_dir, slots, n_gpus, exclusive=False):
        self.got, self.go = threading.Event(), threading.Event()
        self.slot = None
        self.thread = threading.Thread(target=self._run, args=(lock_dir, slots, n_gpus, exclusive), daemon=True)
        self.thread.start()

    def _run(self, lock_dir, slots, n_gpus, exclusive):
        with gpu_slot(lock_dir, slots, exclusive, n_gpus=n_gpus) as i:
            self.slot = i
            self.got.set()
            self.go.wait(WAIT)

    def wait(self):
        assert self.got.wait(WAIT), "no slot in time"
        return self.slot

    def release(self):
        self.go.set()
        self.thread.join(WAIT)
        assert not self.thread.is_alive()


def locked(lock_dir, i) -> bool:
    """Whether slot i's lock is held (by anyone: this is another open of the file)."""
    with open(lock_dir / f"gpu{i}.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def test_exclusive_waits_for_its_gpu_blocks_new_shared_and_leaves_other_gpus(tmp_path):
    # 4 slots on 2 GPUs: slots 0 and 2 on GPU 0, 1 and 3 on GPU 1.
    holders = [Holder(tmp_path, 4, 2) for _ in range(4)]
    assert sorted(h.wait() for h in holders) == [0, 1, 2, 3]
    by_slot = {h.slot: h for h in holders}
    by_slot[2].release()                               # GPU 0's slot 2 free, its slot 0 busy
    alone = Holder(tmp_path, 4, 2, exclusive=True)
    time.sleep(0.3)
    assert not alone.got.is_set()                      # waits for slot 0's shared holder
    late = Holder(tmp_path, 4, 2)                      # a new shared holder meanwhile
    by_slot[0].release()
    assert alone.wait() == 2
    assert locked(tmp_path, 0) and locked(tmp_path, 2)  # every slot of GPU 0 is the exclusive holder's
    time.sleep(0.3)
    assert not late.got.is_set()                       # GPU 0 taken alone, GPU 1 full: it waits
    by_slot[1].release()                               # a GPU 1 slot frees up: not blocked by GPU 0
    assert late.wait() == 1
    assert alone.got.is_set() and not alone.go.is_set()  # the exclusive hold is still on
    alone.release()
    assert not locked(tmp_path, 0) and not locked(tmp_path, 2)
    late.release()
    by_slot[3].release()


def test_two_exclusive_holders_and_shared_ones_never_deadlock_or_overlap(tmp_path):
    """Exclusive and shared holders of one GPU (and of a second one) in a loop: each exclusive
    hold sees no other holder on its GPU, and every thread finishes."""
    n_gpus, slots = 2, 4
    busy = {0: [], 1: []}                              # per GPU: the holders on it now
    guard, broken, done = threading.Lock(), [], []

    def worker(exclusive, rounds):
        for _ in range(rounds):
            with gpu_slot(tmp_path, slots, exclusive, n_gpus=n_gpus) as i:
                g = i % n_gpus
                with guard:
                    if busy[g] and (exclusive or "alone" in busy[g]):
                        broken.append((i, exclusive, list(busy[g])))
                    busy[g].append("alone" if exclusive else "shared")
                time.sleep(0.005)
                with guard:
                    busy[g].remove("alone" if exclusive else "shared")
                    done.append(exclusive)

    threads = [threading.Thread(target=worker, args=(e, 25), daemon=True) for e in (True, True, True, False, False, False)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    for t in threads:
        t.join(max(0.1, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "deadlock: a holder never finished"
    assert broken == []
    assert sorted(done) == [False] * 75 + [True] * 75      # every hold of every thread happened


def test_a_held_slot_upgrades_to_its_gpu_and_keeps_the_slot_after(tmp_path):
    """The nested case: a stage that holds its shared slot asks for the GPU alone."""
    other = Holder(tmp_path, 3, 1)                     # one GPU, 3 slots: slot 0 taken by another
    assert other.wait() == 0
    upgraded = threading.Event()

    def nested():
        with gpu_slot(tmp_path, 3, n_gpus=1) as i:
            assert i == 1
            with gpu_slot(tmp_path, 3, exclusive=True, n_gpus=1) as j:
                assert j == 1
                assert all(locked(tmp_path, s) for s in range(3))
                with gpu_slot(tmp_path, 3, exclusive=True, n_gpus=1) as k:   # already alone: the same hold
                    assert k == 1
                upgraded.set()
            assert locked(tmp_path, 1) and not locked(tmp_path, 2)   # back to its own slot

    t = threading.Thread(target=nested, daemon=True)
    t.start()
    time.sleep(0.3)
    assert not upgraded.is_set()                       # slot 0's holder still runs
    other.release()
    t.join(WAIT)
    assert upgraded.is_set() and not t.is_alive()
    assert not any(locked(tmp_path, s) for s in range(3))


def test_held_records_the_exclusive_hold_and_the_report_shows_it(tmp_path):
    held = {}
    with _held(gpu_slot(tmp_path, 2, n_gpus=1), held):
        pass
    assert "gpu_exclusive" not in held
    with _held(gpu_slot(tmp_path, 2, exclusive=True, n_gpus=1), held, exclusive=True):
        pass
    assert held["gpu_exclusive"] is True and 0 <= held["gpu_exclusive_wait_s"] <= held["gpu_wait_s"]

    class Ran:
        ran, result = True, {"gpu": 0, "gpu_s": 0.5, **held}
    use = _gpu_use(Ran())
    assert use["gpu_exclusive"] is True and "gpu_exclusive_wait_s" in use


def _timed_stage_parts(ctx):
    return {"source": ctx["source"]}


def _timed_stage_run(ctx, work):
    with _slot(ctx)():                                 # verification: shared
        pass
    with _slot(ctx, exclusive=True)():                 # the timed run: alone
        return {"status": "ok", "summary": "timed"}


def test_a_stage_s_exclusive_hold_reaches_its_result(tmp_path, monkeypatch):
    monkeypatch.setattr(chain, "STAGES", (("bench", _timed_stage_parts, _timed_stage_run, True),))
    opts = Options(jobs=1, gpu_jobs=2, cache_dir=tmp_path / "cache", state_dir=tmp_path / "state")
    (o,) = run_kernel("k.c", "k", {"backend": "gpu"}, opts)
    assert o.status == "ok" and o.result["gpu_exclusive"] is True
    assert o.result["gpu_exclusive_wait_s"] >= 0 and o.result["gpu"] in (0, 1)
    assert _slot({})().__class__.__name__ == "nullcontext"   # no engine: no slot


def test_the_bench_rung_times_inside_the_exclusive_hold_only(monkeypatch):
    """rungs.bench enters `timed_device` (not `device`) around the timed process."""
    from t2c.verify import rungs
    from t2c.verify.runs import Run
    active = []

    @contextmanager
    def mark(name):
        active.append(name)
        try:
            yield
        finally:
            active.remove(name)

    class Case:
        sizes, inputs, ref_seconds = {"n": 4}, {}, 0.0

    class Suite:
        def of(self, rung):
            return [Case()]

    class Seen(Exception):
        pass

    def fake_run_candidate(*a, **kw):
        raise Seen(list(active))

    monkeypatch.setattr(rungs, "run_candidate", fake_run_candidate)
    monkeypatch.setattr(rungs, "poisoned_outputs", lambda k, sizes: {})
    run = Run(kernel=None, backend="gpu", suite=Suite(), build=None, limits=None,
              device=lambda: mark("shared"), timed_device=lambda: mark("alone"))
    with pytest.raises(Seen) as e:
        rungs.bench(run)
    assert e.value.args[0] == ["alone"]
    run.timed_device = None                             # outside the engine: `device` as before
    with pytest.raises(Seen) as e:
        rungs.bench(run)
    assert e.value.args[0] == ["shared"]
