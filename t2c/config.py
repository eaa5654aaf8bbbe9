"""Every knob of t2c has its home here, with its default and the variable that sets it.

| setting          | variable        | default                              |
|------------------|-----------------|--------------------------------------|
| cache directory  | T2C_CACHE_DIR   | $XDG_CACHE_HOME/t2c (~/.cache/t2c)   |
| C compiler       | T2C_CC          | gcc                                  |
| C++ compiler (emu) | T2C_CXX       | g++                                  |
| emu build cache  | T2C_EMU_CACHE   | <cache directory>/emu                |
| reference flags  | T2C_REF_CFLAGS  | -O2 -std=c99 (IEEE: no FP contraction)|
| run timeout (s)  | T2C_TIMEOUT     | 120                                  |
| default dataset  | T2C_DATASET     | MINI without a GPU, LARGE with one   |
| CUDA compiler    | T2C_NVCC        | nvcc on PATH, else the PyPI one in this Python's site-packages |
| random size points per suite | T2C_VERIFY_POINTS | 4                            |
| reference seconds a random point may cost | T2C_VERIFY_POINT_BUDGET | 0.002  |
| emu: reference seconds the full rung's dataset may cost | T2C_VERIFY_EMU_BUDGET | 0.02 |
| scheduling seeds of the races rung | T2C_VERIFY_RACE_SEEDS | 3                |
| timeout of one smoke/random/races run (s) | T2C_VERIFY_RUN_TIMEOUT | 30     |
| candidate memory limit (MiB)  | T2C_VERIFY_MEM_MB | 8192                        |
| bench repetitions             | T2C_VERIFY_BENCH_REPS | 20                      |

Nothing else in t2c reads the environment for settings.
"""
from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Config:
    cache_dir: Path
    cc: str
    ref_cflags: tuple[str, ...]
    timeout: float
    dataset: str | None
    nvcc: str | None
    cxx: str = "g++"
    emu_cache: Path | None = None
    verify_points: int = 4
    verify_point_budget: float = 0.002
    verify_emu_budget: float = 0.02
    verify_race_seeds: int = 3
    verify_run_timeout: float = 30.0
    verify_mem_mb: int = 8192
    verify_bench_reps: int = 20


def load(env=os.environ) -> Config:
    xdg = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Config(
        cache_dir=Path(env.get("T2C_CACHE_DIR") or Path(xdg) / "t2c"),
        cc=env.get("T2C_CC", "gcc"),
        ref_cflags=tuple(shlex.split(env.get("T2C_REF_CFLAGS", "-O2 -std=c99 -ffp-contract=off"))),
        timeout=float(env.get("T2C_TIMEOUT", "120")),
        dataset=env.get("T2C_DATASET"),
        nvcc=env.get("T2C_NVCC") or find_nvcc(),
        cxx=env.get("T2C_CXX", "g++"),
        emu_cache=Path(env["T2C_EMU_CACHE"]) if env.get("T2C_EMU_CACHE") else None,
        verify_points=int(env.get("T2C_VERIFY_POINTS", "4")),
        verify_point_budget=float(env.get("T2C_VERIFY_POINT_BUDGET", "0.002")),
        verify_emu_budget=float(env.get("T2C_VERIFY_EMU_BUDGET", "0.02")),
        verify_race_seeds=int(env.get("T2C_VERIFY_RACE_SEEDS", "3")),
        verify_run_timeout=float(env.get("T2C_VERIFY_RUN_TIMEOUT", "30")),
        verify_mem_mb=int(env.get("T2C_VERIFY_MEM_MB", "8192")),
        verify_bench_reps=int(env.get("T2C_VERIFY_BENCH_REPS", "20")),
    )


def find_nvcc() -> str | None:
    """nvcc on PATH, else the one the nvidia-cuda-nvcc wheel put next to this Python."""
    found = shutil.which("nvcc")
    if found:
        return found
    import sysconfig
    for sub in ("cu13", "cuda_nvcc", "cu12"):
        cand = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / sub / "bin" / "nvcc"
        if cand.exists():
            return str(cand)
    return None
