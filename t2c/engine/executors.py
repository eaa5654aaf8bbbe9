"""Where the batch engine runs kernels: on this machine, or on a Dask cluster.

Contract.  `run_batch` (batch.py) hands an executor one job per kernel: the whole
chain of stages, `task(source, kid, settings, opts) -> list[Outcome]` (by default
`batch.run_kernel`).  An executor

- `open(n_kernels)` / `close()`: gets its workers ready / lets them go;
- `width`: how many kernels it takes in flight at once (run_batch keeps no more
  than that pending, so `--fail-fast` stops starting new kernels as before);
- `submit(source, kid, settings, opts)` -> a future with `.result()`;
- `wait(pending, timeout)` -> the futures that finished (possibly none);
- `events()`: stage outcomes that arrived since the last call, when it streams
  them (`streams_events`); otherwise run_batch reports a kernel's outcomes when
  its future finishes.

A job reads and writes only the content-addressed cache (`opts.cache_dir`) and the
state database (`opts.state_dir`), and returns small Outcome lists, never arrays:
so for Dask both directories, and the corpus, must be at the same absolute path on
every worker.  A future that raises (a worker process died) costs only its kernel,
which run_batch records as `internal: worker died`.

- `LocalExecutor` ("local", the default): a process pool of `-j` workers (at least
  `--gpu-jobs` with the gpu backend, so every GPU can be busy); a GPU stage takes
  one of the lock-file GPU slots in batch.py, which pins the candidate processes
  with CUDA_VISIBLE_DEVICES.  One job (or one kernel) runs in this process.
- `DaskExecutor` ("dask-local", "dask://HOST:PORT"; the optional extra t2c[dask]):
  each kernel's chain is one Dask task.  With the gpu backend the task asks for
  `resources={"GPU": 1}` (workers declare it: `dask worker ... --resources GPU=1`),
  so chains only go to workers with a GPU; CPU stages then also run there, which
  costs little since a chain is mostly its GPU stages.  Inside the task the same
  lock-file slots pin the device (Dask does not set CUDA_VISIBLE_DEVICES).  A task
  whose worker dies is rescheduled on another worker by the scheduler (up to
  `distributed.scheduler.allowed-failures` times); `retries=` covers a task that
  raises.  Stage outcomes reach the progress display when a kernel's task ends.
"""
from __future__ import annotations

import logging
import os
import queue
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import replace
from multiprocessing import Manager
from pathlib import Path

from ..errors import UserError

INSTALL_HINT = "install t2c[dask] (pip install 't2c[dask]') here and on every worker"


def _width(opts, settings) -> int:
    jobs = max(1, opts.jobs or os.cpu_count() or 1)
    # A kernel in its GPU stage holds a worker, so -j below --gpu-jobs would leave GPUs idle.
    if settings.get("backend") == "gpu":
        jobs = max(jobs, opts.gpu_jobs)
    return jobs


class LocalExecutor:
    name = "local"

    def __init__(self, opts, settings, task=None):
        self.jobs = _width(opts, settings)
        self.task = task
        self.width = self.jobs
        self.streams_events = False
        self._pool = self._manager = self._queue = None

    def open(self, n_kernels: int) -> None:
        if self.jobs == 1 or n_kernels <= 1:
            return                       # inline: no pool to start for one job
        self._manager = Manager()        # a queue the workers can reach, for live progress
        self._queue = self._manager.Queue()
        self._pool = ProcessPoolExecutor(max_workers=self.jobs)
        self.streams_events = True

    def submit(self, source, kid, settings, opts):
        task = self.task or _run_kernel()
        if self._pool is None:
            # Inline on purpose: a t2c bug raises here with its traceback, as before executors.
            fut = Future()
            fut.set_result(task(source, kid, settings, opts))
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


def _run_kernel():
    from .batch import run_kernel        # batch imports this module: import late
    return run_kernel


def _dask_chain(task, source, kid, settings, opts):
    """The Dask task: one kernel's chain on a worker.  Returns the Outcome list."""
    return (task or _run_kernel())(source, kid, settings, opts)


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
        self.client = self.cluster = None

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
        # Workers have their own working directory: give them absolute paths.
        opts = replace(opts, cache_dir=Path(opts.cache_dir).resolve(),
                       state_dir=Path(opts.state_dir).resolve())
        return self.client.submit(_dask_chain, self.task, str(Path(source).resolve()), kid, settings, opts,
                                  key=f"t2c-{kid}-{uuid.uuid4().hex[:8]}", pure=False,
                                  retries=self.retries, resources={"GPU": 1} if self.gpu else None)

    def wait(self, pending, timeout: float):
        from distributed import wait
        try:
            done, _ = wait(list(pending), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        if not done and time.monotonic() - self._refreshed > 5:
            self._refresh()              # now and then, not every poll: it asks the scheduler
        return set(done)

    def events(self) -> list:
        return []

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None


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


def gpu_summary(results: dict) -> str:
    """One line: per GPU slot, how many GPU stages ran there this batch and their seconds."""
    per: dict[int, list] = {}
    for outcomes in results.values():
        for o in outcomes:
            gpu = (o.result or {}).get("gpu")
            if o.ran and gpu is not None:
                n_s = per.setdefault(gpu, [0, 0.0])
                n_s[0] += 1
                n_s[1] += o.seconds
    if not per:
        return "per GPU: no GPU stage ran"
    return "per GPU: " + "; ".join(f"GPU {g}: {n} stage(s), {s:.1f} s" for g, (n, s) in sorted(per.items()))
