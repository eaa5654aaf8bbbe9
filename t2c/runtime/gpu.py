"""What GPU this machine has, asked of nvidia-smi (no CUDA Python binding needed).

`gpus()` lists the visible devices (empty without a driver); `fingerprint()` is a
short stable description (name, count, driver) that goes into bench cache keys and
reports; `toolchain(backend)` names the compilers a verify result depends on.
"""
from __future__ import annotations

import shutil
from functools import lru_cache

from .. import config
from .build import compiler_version
from .process import QUERY_TIMEOUT, run_process


@lru_cache(maxsize=1)
def gpus() -> tuple[dict, ...]:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return ()
    try:
        out = run_process([smi, "--query-gpu=index,name,driver_version,memory.total,clocks.max.sm",
                           "--format=csv,noheader"], timeout=QUERY_TIMEOUT)
    except OSError:
        return ()
    if not out.ok:
        return ()
    rows = []
    for line in out.stdout.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 5:
            rows.append(dict(zip(("index", "name", "driver", "memory", "max_sm_clock"), parts)))
    return tuple(rows)


def gpu_present() -> bool:
    return bool(gpus())


def fingerprint() -> str:
    g = gpus()
    if not g:
        return "no-gpu"
    return f"{len(g)}x {g[0]['name']} driver {g[0]['driver']}"


def toolchain(backend: str) -> str:
    if backend == "gpu":
        nvcc = config.load().nvcc
        try:
            ver = run_process([nvcc, "--version"], timeout=QUERY_TIMEOUT).stdout.strip().splitlines()[-1]
        except (OSError, TypeError, IndexError):
            ver = "no nvcc"
        return f"{ver}; {fingerprint()}"
    return f"emu; {compiler_version('g++')}"
