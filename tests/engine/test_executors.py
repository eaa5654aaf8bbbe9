"""Executors: the local pool spreads GPU stages over every slot; Dask gives the same results
as local, survives a worker killed mid-task, and fails clearly when it cannot run."""
import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from t2c.engine import chain
from t2c.engine.batch import Options, Outcome, discover, kernel_ids, run_batch, run_kernel, select
from t2c.engine.executors import DaskExecutor, LocalExecutor, gpu_summary, make_executor
from t2c.engine.store import StateDB
from t2c.errors import UserError
from t2c.runtime.gpu import gpus
from test_engine import corpus, ran, t2c  # noqa: F401  (corpus is a fixture)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """Dask writes its config under ~/.config: keep it in the test's own folder."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


# -- test tasks (module level: Dask workers import them by name) -------------------------

def _gpu_stage_parts(ctx):
    return {"source": ctx["source"]}


def _gpu_stage_run(ctx, work):
    time.sleep(0.1)                      # CPU work first (a suite, a mutant gate): no slot held
    with ctx["gpu_slot"]():
        time.sleep(0.3)                  # long enough that the slots overlap
        return {"status": "ok", "summary": os.environ.get("CUDA_VISIBLE_DEVICES", "unset")}


FAKE_STAGES = (("gpuwork", _gpu_stage_parts, _gpu_stage_run, True),)


def fake_gpu_task(source, kid, settings, opts, events=None):
    """One GPU stage that only reports the device it was pinned to; no GPU needed."""
    chain.STAGES = FAKE_STAGES           # in the worker process only
    return run_kernel(source, kid, settings, opts, events)


def hang_first_atax(source, kid, settings, opts, events=None):
    """atax's first attempt hangs until the test kills its worker; every later attempt runs."""
    state = Path(opts.cache_dir).parent          # shared with the test (the task's state_dir is not)
    if kid == "atax" and not (state / "killed").exists():
        (state / "victim.tmp").write_text(str(os.getpid()))
        os.replace(state / "victim.tmp", state / "victim.pid")
        deadline = time.monotonic() + 600         # until the test kills this worker (an event, not a
        while not (state / "killed").exists() and time.monotonic() < deadline:   # guess of its speed)
            time.sleep(0.05)
        time.sleep(600)                           # "killed" is written just before the SIGKILL
    (state / f"ran-{kid}-{os.getpid()}").touch()
    return run_kernel(source, kid, settings, opts, events)


def fake_kernels(tmp_path, n):
    return [(tmp_path / f"k{i}.c", f"k{i}") for i in range(n)]


def gpu_opts(tmp_path, jobs):
    return Options(jobs=jobs, gpu_jobs=2, cache_dir=tmp_path / "cache", state_dir=tmp_path / "state")


def assert_spread_over_both_gpus(results):
    stages = [o for outs in results.values() for o in outs]
    assert all(o.status == "ok" for o in stages), stages
    assert {o.result["gpu"] for o in stages} == {0, 1}
    # Pinned to its slot's GPU (slots beyond the GPU count share GPUs round-robin).
    assert all(o.summary == str(o.result["gpu"] % max(1, len(gpus()))) for o in stages)
    # held only around the device part: the CPU part before it is not counted as GPU time
    assert all(0.3 <= o.result["gpu_s"] < o.seconds - 0.05 for o in stages)
    line = gpu_summary(results)
    assert line.startswith("per GPU: GPU 0: ") and "; GPU 1: " in line
    # the report's stage entries carry the same: which GPU, how long held, when
    from t2c.engine.run import _gpu_use
    assert all(_gpu_use(o)["gpu"] == o.result["gpu"] and _gpu_use(o)["gpu_to"] >= _gpu_use(o)["gpu_from"]
               for o in stages)


# -- local ---------------------------------------------------------------------------------

def test_local_gpu_jobs_spread_over_every_gpu(tmp_path):
    picked = fake_kernels(tmp_path, 6)
    ex = LocalExecutor(gpu_opts(tmp_path, 1), {"backend": "gpu"}, task=fake_gpu_task)
    assert ex.width == 2                 # -j 1 would leave the second GPU idle
    results = run_batch(picked, {"backend": "gpu"}, gpu_opts(tmp_path, 1), executor=ex)
    assert_spread_over_both_gpus(results)
    assert LocalExecutor(gpu_opts(tmp_path, 1), {"backend": "emu"}).width == 1


def test_one_kernel_inline_reports_each_stage_as_it_ends(tmp_path):
    """With one kernel (or -j 1) the chain runs in this process; its stages still reach the
    printer as they end, not all at once when the chain is done (a long LARGE verify would
    otherwise look like a hang)."""
    printed = []

    def task(source, kid, settings, opts, events=None):
        first = Outcome(f"{kid}:parse", kid, "parse", "ok", "", "")
        events.put(first)
        assert printed == [first]          # out before the next stage starts
        second = Outcome(f"{kid}:verify", kid, "verify", "ok", "", "")
        events.put(second)
        return [first, second]
    picked = fake_kernels(tmp_path, 1)
    opts = Options(jobs=1, cache_dir=tmp_path / "cache", state_dir=tmp_path / "state")
    results = run_batch(picked, {"backend": "emu"}, opts, on_event=printed.append,
                        executor=LocalExecutor(opts, {"backend": "emu"}, task=task))
    assert [o.stage for o in printed] == ["parse", "verify"] == [o.stage for o in results["k0"]]


def test_gpu_summary_counts_only_stages_that_ran():
    # a stage's seconds on the GPU are those it held the slot (gpu_s), not its whole run
    o = lambda g, s, ran=True: Outcome("k:verify", "k", "verify", "ok", "", "", s + 7, ran,
                                       {"gpu": g, "gpu_s": s})
    results = {"a": [o(0, 1.0), o(1, 2.0)], "b": [o(0, 0.5), o(1, 9.0, ran=False)],
               "c": [Outcome("c:parse", "c", "parse", "ok", "", "", 3.0, True, {})]}
    assert gpu_summary(results) == "per GPU: GPU 0: 2 stage(s), 1.5 s held; GPU 1: 1 stage(s), 2.0 s held"
    assert gpu_summary({}) == "per GPU: no GPU stage ran"
    # the GPU phase: from the first slot taken to the last given back
    spans = {"a": [Outcome("a:verify", "a", "verify", "ok", "", "", 9.0, True,
                           {"gpu": 0, "gpu_s": 2.0, "gpu_from": 100.0, "gpu_to": 102.0})],
             "b": [Outcome("b:verify", "b", "verify", "ok", "", "", 9.0, True,
                           {"gpu": 1, "gpu_s": 3.0, "gpu_from": 101.0, "gpu_to": 104.5})]}
    assert gpu_summary(spans) == ("per GPU: GPU 0: 1 stage(s), 2.0 s held; GPU 1: 1 stage(s), 3.0 s held; "
                                  "GPU phase 4.5 s (first slot taken to last given back)")
    # Four slots on two GPUs: slots 0 and 2 ran on GPU 0, 1 and 3 on GPU 1.
    four = {"a": [o(0, 1.0), o(1, 1.0), o(2, 1.0), o(3, 1.0)]}
    assert gpu_summary(four, 2) == "per GPU: GPU 0: 2 stage(s), 2.0 s held; GPU 1: 2 stage(s), 2.0 s held"


def test_executor_spec_errors(monkeypatch, tmp_path):
    opts, settings = gpu_opts(tmp_path, 1), {"backend": "emu"}
    assert make_executor(None, opts, settings).name == "local"
    with pytest.raises(UserError, match="not local, dask-local or dask://HOST:PORT"):
        make_executor("ray", opts, settings)
    with pytest.raises(UserError, match="not dask://HOST:PORT"):
        make_executor("dask://nohost", opts, settings)
    monkeypatch.setitem(sys.modules, "distributed", None)        # as if Dask were not installed
    for spec in ("dask://scheduler:8786", "dask-local"):
        with pytest.raises(UserError, match=r"install t2c\[dask\]"):
            make_executor(spec, opts, settings)


# -- Dask ----------------------------------------------------------------------------------

@pytest.mark.full                 # the worker-kill test below runs batches on Dask in `make test`
def test_dask_local_gives_the_same_results_as_local(corpus, home, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    local = t2c("batch", "corpus", "-j", "2", "--report-dir", str(tmp_path / "local"))
    # A fresh cache and state, so the Dask run really runs every target.
    monkeypatch.setenv("T2C_CACHE_DIR", str(tmp_path / "cache-dask"))
    os.rename(tmp_path / ".t2c", tmp_path / ".t2c-local")
    (tmp_path / ".t2c").mkdir()
    os.replace(tmp_path / ".t2c-local" / "secret-seed", tmp_path / ".t2c" / "secret-seed")
    dask = t2c("batch", "corpus", "-j", "2", "--executor", "dask-local", "--report-dir", str(tmp_path / "dask"))
    assert "executor dask-local" in dask.stderr
    assert dask.returncode == local.returncode, dask.stdout + dask.stderr

    def rows(name):
        got = json.loads((tmp_path / name / "results.json").read_text())["rows"]
        return {r["kernel"]: (r["status"], {s: (v["status"], v["reason"]) for s, v in r["stages"].items()})
                for r in got}
    assert rows("dask") == rows("local") and len(rows("dask")) == 3, local.stdout + dask.stdout
    assert ran(dask.stderr) == ran(local.stderr)
    # Same content-addressed keys: the workers computed exactly what the local run did.
    keys = lambda root: {p.relative_to(root) for p in root.glob("targets/*/*") if (p / "MANIFEST").exists()}
    assert keys(tmp_path / "cache-dask") == keys(tmp_path / "cache") != set()
    # The workers wrote the project's cache and state: a local rerun has nothing to do.
    assert ran(t2c("batch", "corpus").stderr) == set()


def test_dask_worker_killed_mid_task_costs_only_a_retry(corpus, home, tmp_path):
    pytest.importorskip("distributed")
    from t2c.engine.run import settings_for
    settings = settings_for("MINI", "emu", "poly", 1, None, tmp_path / ".t2c")
    opts = Options(jobs=2, cache_dir=Path(os.environ["T2C_CACHE_DIR"]) / "targets", state_dir=tmp_path / ".t2c")
    state = opts.cache_dir.parent
    state.mkdir(parents=True, exist_ok=True)
    sources = discover(["corpus"])
    picked = select(sources, kernel_ids(sources))

    def kill_the_worker_running_atax():
        pid_file = state / "victim.pid"
        deadline = time.monotonic() + 600     # a generous bound for a loaded machine's worker start
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        (state / "killed").touch()
        os.kill(int(pid_file.read_text()), signal.SIGKILL)

    killer = threading.Thread(target=kill_the_worker_running_atax, daemon=True)
    killer.start()
    # Fake GPU resources: every worker declares GPU=1 and every chain asks for it.
    ex = DaskExecutor(None, jobs=2, gpu=True, declare_gpu=True, task=hang_first_atax)
    results = run_batch(picked, settings, opts, executor=ex)
    killer.join(60)
    assert not killer.is_alive() and (state / "killed").exists()
    victim = int((state / "victim.pid").read_text())
    assert sorted(results) == ["atax", "gemm", "jacobi-1d"]
    for kid, outs in results.items():
        assert [o.stage for o in outs][:3] == ["parse", "reference", "generate"], outs
        assert outs[0].status == "ok" and all(o.reason != "worker died" for o in outs)
    # atax ran to the end once, in a process other than the one that was killed.
    assert [p.name for p in state.glob("ran-atax-*")] != [] and not (state / f"ran-atax-{victim}").exists()
    # The client recorded every chain's targets in the project's state, as a local run does.
    db = StateDB(tmp_path / ".t2c" / "state.sqlite")
    recorded = {r["target"]: r["reason"] for r in db.all()}
    db.close()
    assert recorded["atax:parse"] == recorded["gemm:reference"] == "never built"


def test_dask_pins_each_gpu_chain_to_a_slot(home, tmp_path):
    pytest.importorskip("distributed")
    ex = DaskExecutor(None, jobs=2, gpu=True, task=fake_gpu_task)
    results = run_batch(fake_kernels(tmp_path, 6), {"backend": "gpu"}, gpu_opts(tmp_path, 2), executor=ex)
    assert_spread_over_both_gpus(results)
    assert sorted(p.name for p in (tmp_path / "state" / "locks").iterdir()) == ["gpu0.lock", "gpu1.lock"]
    # Workers on another host use that host's GPUs, with lock files in its own temp folder.
    ex = DaskExecutor(None, jobs=2, gpu=True, task=fake_gpu_task)
    ex.host = "not-this-host"
    results = run_batch(fake_kernels(tmp_path / "other", 2), {"backend": "gpu"},
                        gpu_opts(tmp_path / "other", 2), executor=ex)
    slots = max(1, len(gpus()))
    assert {o.result["gpu"] for outs in results.values() for o in outs} <= set(range(slots))
    assert not (tmp_path / "other" / "state" / "locks").exists()
    assert (Path(tempfile.gettempdir()) / f"t2c-gpu-locks-{os.getuid()}" / "gpu0.lock").exists()


def test_dask_errors_name_the_problem(home, tmp_path):
    pytest.importorskip("distributed")
    import dask
    with pytest.raises(UserError, match="no Dask worker at dask-local offers the GPU resource"):
        DaskExecutor(None, jobs=1, gpu=True, declare_gpu=False).open(1)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        ex = make_executor("dask://127.0.0.1:9", gpu_opts(tmp_path, 1), {"backend": "emu"})
        with pytest.raises(UserError, match="cannot reach the Dask scheduler at 127.0.0.1:9"):
            ex.open(1)


def test_the_heartbeat_names_each_running_kernels_stage_and_its_time():
    """A long batch's heartbeat says where each running kernel is: the stage and how long it has
    taken (an executor that reports only whole kernels: the kernel's time)."""
    from t2c.engine.batch import running
    at = {"adi": ("suite", 100.0), "gemm": ("", 170.0), "lu": ("bench", 175.5)}
    assert running(["adi", "gemm", "lu", "new"], at, 352.0) == [
        "adi suite 4m12s", "gemm 3m02s", "lu bench 2m56s", "new"]
    assert running(["lu"], at, 180.0) == ["lu bench 4s"]

