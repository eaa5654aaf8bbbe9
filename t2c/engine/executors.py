"""Where the batch engine runs kernels: on this machine, or on a Dask cluster.

    make_executor(spec, opts, settings, task=None) -> LocalExecutor | DaskExecutor

Takes one job per kernel from `run_batch`: its whole chain of stages (`chain.run_kernel`), which
reads and writes the content-addressed cache and returns small Outcome lists, never arrays.
Gives `open`/`close`, `width` (kernels in flight), `submit` (a future), `wait` and `events`.
`LocalExecutor` ("local") is a process pool of `-j` workers that also write the state database;
`DaskExecutor` ("dask-local", "dask://HOST:PORT", the t2c[dask] extra) runs each chain as one
task, on GPU workers only with the gpu backend, the cache on a shared filesystem. A future that
raises (its worker died) costs only its kernel. docs/scale.md, "The executor interface".
"""
from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import socket
import tempfile
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import replace
from multiprocessing import Manager
from pathlib import Path

from ..errors import UserError
from .chain import run_kernel

INSTALL_HINT = "install t2c[dask] (pip install 't2c[dask]') here and on every worker"


def _width(opts, settings) -> int:
    jobs = max(1, opts.jobs or os.cpu_count() or 1)
    # A kernel in its GPU stage holds a worker, so -j below --gpu-jobs would leave GPUs idle.
    if settings.get("backend") == "gpu":
        jobs = max(jobs, opts.gpu_jobs)
    return jobs


class LocalExecutor:
    """Kernels in a process pool on this machine, with stage outcomes streamed live."""

    name = "local"

    def __init__(self, opts, settings, task=None):
        self.jobs = _width(opts, settings)
        self.task, self.state_db = task, Path(opts.state_dir) / "state.sqlite"
        self.width = self.jobs
        self.streams_events = False
        self._pool = self._manager = self._queue = None
        self.live = None                 # run_batch's printer: inline chains report each stage at once

    def open(self, n_kernels: int) -> None:
        if self.jobs == 1 or n_kernels <= 1:
            self.streams_events = self.live is not None
            return                       # inline: no pool to start for one job
        # Workers opening a new database together race to switch it to WAL mode, and SQLite
        # answers the loser "database is locked" at once (deadlock avoidance skips the busy
        # timeout): create it here first.
        from .store import StateDB
        StateDB(self.state_db).close()
        self._manager = Manager()        # a queue the workers can reach, for live progress
        self._queue = self._manager.Queue()
        self._pool = ProcessPoolExecutor(max_workers=self.jobs)
        self.streams_events = True

    def submit(self, source, kid, settings, opts):
        task = self.task or run_kernel
        if self._pool is None:
            # Inline on purpose: a t2c bug raises here with its traceback, as before executors.
            fut = Future()
            fut.set_result(task(source, kid, settings, opts, _Direct(self.live) if self.live else None))
            return fut
        return self._pool.submit(task, source, kid, settings, opts, self._queue)

    def wait(self, pending, timeout: float):
        done, _ = wait_futures(list(pending), timeout=timeout, return_when=FIRST_COMPLETED)
        return done

    def events(self) -> list:
        out = []
        while self._queue is not None:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        if self._manager is not None:
            self._manager.shutdown()
        self._pool = self._manager = self._queue = None


class _Direct:
    """An events queue whose `put` prints at once: an inline chain's stages as they end."""

    def __init__(self, emit):
        self.put = emit


def _dask_chain(task, source, kid, settings, opts, prev_rows, client_host):
    """The Dask task: one kernel's chain on a worker.  Returns (outcomes, state rows).

    The chain records its targets in a private state database, seeded with the
    client's rows for this kernel (so the reasons are the same as a local run's), and
    returns the rows it wrote: the client records them.  Why: the project's SQLite
    state is in WAL mode, which is unsafe on a network filesystem, and a task killed
    half-way must leave nothing behind.  GPU stages take the lock-file slots as in a
    local run (Dask does not set CUDA_VISIBLE_DEVICES): the project's own slots on
    the client's host, else per-host slots over that host's GPUs.
    """
    from ..runtime import gpu as gpu_info
    from .store import StateDB
    try:                                 # Dask purges a dead worker's folder; /tmp is not purged
        from distributed import get_worker
        scratch = get_worker().local_directory
    except (ImportError, ValueError):
        scratch = None
    tmp = Path(tempfile.mkdtemp(prefix="t2c-task-", dir=scratch))
    try:
        if socket.gethostname() == client_host:
            locks, slots = Path(opts.state_dir) / "locks", opts.gpu_jobs
        else:                            # a lock in a shared folder would lock GPU i of every host
            locks = Path(tempfile.gettempdir()) / f"t2c-gpu-locks-{os.getuid()}"
            slots = len(gpu_info.gpus()) or 1
        locks.mkdir(parents=True, exist_ok=True)
        (tmp / "locks").symlink_to(locks.resolve(), target_is_directory=True)
        db = StateDB(tmp / "state.sqlite")
        for r in prev_rows:              # as they were, `finished` included, to tell them apart
            db.db.execute("insert or replace into targets values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          (r["target"], r["stage"], r["kernel"], r["key"], r["status"], r["reason"],
                           r["seconds"], r["finished"], json.dumps(r["parts"], sort_keys=True)))
        db.close()
        seeded = {(r["target"], r["finished"]) for r in prev_rows}
        outcomes = (task or run_kernel)(source, kid, settings,
                                           replace(opts, state_dir=tmp, gpu_jobs=slots))
        db = StateDB(tmp / "state.sqlite")
        rows = [r for r in db.all() if (r["target"], r["finished"]) not in seeded]
        db.close()
        return outcomes, rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class _DaskJob:
    """run_batch's future for one Dask task: `.result()` records its state rows here."""

    def __init__(self, future, state):
        self.future, self.state = future, state

    def result(self):
        outcomes, rows = self.future.result()
        for r in rows:
            self.state.record(r["target"], r["stage"], r["kernel"], r["key"], r["status"], r["reason"],
                              r["seconds"], r["parts"])
        return outcomes


class DaskExecutor:
    """Kernels as Dask tasks: on a new LocalCluster (address None) or an existing scheduler."""

    def __init__(self, address: str | None, *, jobs: int = 1, gpu: bool = False,
                 declare_gpu: bool | None = None, retries: int = 2, task=None):
        self.address = address           # "tcp://HOST:PORT", or None for a LocalCluster
        self.name = "dask-local" if address is None else f"dask://{address.split('://', 1)[-1]}"
        self.jobs, self.gpu, self.retries, self.task = max(1, jobs), gpu, retries, task
        self.declare_gpu = gpu if declare_gpu is None else declare_gpu
        self.streams_events = False
        self.width = 1
        self.client = self.cluster = self.state = None
        self.host = socket.gethostname()

    def open(self, n_kernels: int) -> None:
        from distributed import Client, LocalCluster
        if self.address is None:
            self.cluster = LocalCluster(
                n_workers=self.jobs, threads_per_worker=1, processes=True,
                resources={"GPU": 1} if self.declare_gpu else None,
                dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(self.address)
            except (OSError, TimeoutError) as e:
                where = self.address.split("://", 1)[-1]
                raise UserError(f"cannot reach the Dask scheduler at {where} ({e.__class__.__name__})",
                                hint="start it (`dask scheduler`) or check --executor dask://HOST:PORT") from None
            try:
                self.client.wait_for_workers(1, timeout=30)
            except TimeoutError:
                self.close()
                raise UserError(f"the Dask scheduler at {self.address} has no workers",
                                hint=f"start some: dask worker {self.address} --resources GPU=1") from None
        self._refresh()
        if self.gpu and self._gpu_workers == 0:
            where = self.address or "dask-local"
            self.close()
            raise UserError(f"no Dask worker at {where} offers the GPU resource, and the gpu backend needs it",
                            hint="start workers with --resources GPU=1")

    def _refresh(self) -> None:
        try:
            workers = self.client.scheduler_info(n_workers=-1)["workers"]
        except TypeError:                # dask < 2025: scheduler_info() lists them all
            workers = self.client.scheduler_info()["workers"]
        self._gpu_workers = sum(1 for w in workers.values() if w.get("resources", {}).get("GPU", 0) >= 1)
        self._refreshed = time.monotonic()
        pool = self._gpu_workers if self.gpu else sum(w.get("nthreads", 1) for w in workers.values())
        # Workers may come and go; never 0, or run_batch would stop with kernels left.
        self.width = max(1, pool)

    def submit(self, source, kid, settings, opts):
        from .stages import STAGE_NAMES
        from .store import StateDB
        if self.state is None:
            self.state = StateDB(Path(opts.state_dir) / "state.sqlite")
        prev = [r for r in (self.state.get(f"{kid}:{s}") for s in STAGE_NAMES) if r is not None]
        # Workers have their own working directory: give them absolute paths.
        opts = replace(opts, cache_dir=Path(opts.cache_dir).resolve(),
                       state_dir=Path(opts.state_dir).resolve())
        future = self.client.submit(_dask_chain, self.task, str(Path(source).resolve()), kid, settings,
                                    opts, prev, self.host, key=f"t2c-{kid}-{uuid.uuid4().hex[:8]}",
                                    pure=False, retries=self.retries,
                                    resources={"GPU": 1} if self.gpu else None)
        return _DaskJob(future, self.state)

    def wait(self, pending, timeout: float):
        from distributed import wait
        jobs = {job.future: job for job in pending}
        try:
            done, _ = wait(list(jobs), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        if not done and time.monotonic() - self._refreshed > 5:
            self._refresh()              # now and then, not every poll: it asks the scheduler
        return {jobs[f] for f in done}

    def events(self) -> list:
        return []

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        if self.state is not None:
            self.state.close()
        self.client = self.cluster = self.state = None


def _need_dask(spec: str) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError(f"--executor {spec} needs Dask, which is not installed", hint=INSTALL_HINT) from None


def make_executor(spec: str | None, opts, settings, task=None):
    """The executor `--executor SPEC` names: local | dask-local | dask://HOST:PORT."""
    spec = spec or "local"
    gpu = settings.get("backend") == "gpu"
    if spec == "local":
        return LocalExecutor(opts, settings, task=task)
    if spec == "dask-local":
        _need_dask(spec)
        from ..runtime import gpu as gpu_info
        # Every worker may run GPU chains; the lock-file slots decide which device each uses.
        return DaskExecutor(None, jobs=_width(opts, settings), gpu=gpu,
                            declare_gpu=gpu or bool(gpu_info.gpus()), task=task)
    if spec.startswith("dask://"):
        host, _, port = spec[len("dask://"):].rpartition(":")
        if not host or not port.isdigit():
            raise UserError(f"--executor '{spec}' is not dask://HOST:PORT", hint="e.g. dask://scheduler:8786")
        _need_dask(spec)
        return DaskExecutor(f"tcp://{host}:{port}", gpu=gpu, task=task)
    raise UserError(f"--executor '{spec}' is not local, dask-local or dask://HOST:PORT",
                    hint="e.g. --executor dask-local")


def gpu_summary(results: dict, n_gpus: int = 0) -> str:
    """One line: per GPU, how many GPU stages ran on it in this batch and their seconds.

    A stage's result holds its slot and the seconds it held it (`gpu_s`: its runs on the
    device, not its CPU work or its wait); slot i ran on GPU i mod n_gpus (gpu_slot in
    chain.py), so with more slots than GPUs several slots add up to one GPU."""
    per: dict[int, list] = {}
    span = []
    for outcomes in results.values():
        for o in outcomes:
            r = o.result or {}
            if o.ran and r.get("gpu") is not None:
                n_s = per.setdefault(r["gpu"] % n_gpus if n_gpus else r["gpu"], [0, 0.0])
                n_s[0] += 1
                n_s[1] += r.get("gpu_s", o.seconds)
                span += [r[k] for k in ("gpu_from", "gpu_to") if k in r]
    if not per:
        return "per GPU: no GPU stage ran"
    phase = f"; GPU phase {max(span) - min(span):.1f} s (first slot taken to last given back)" if span else ""
    return "per GPU: " + "; ".join(f"GPU {g}: {n} stage(s), {s:.1f} s held"
                                   for g, (n, s) in sorted(per.items())) + phase
