"""Which backend runs a candidate, what machine that was, and what the compiler said.

    resolve_backend("auto"|"gpu"|"emu") -> "gpu" | "emu"   (UserError when unusable)
    fingerprint(backend) -> dict     recorded in every evidence card
    build_figures(log) -> dict       registers, spills, shared memory per kernel (ptxas -v)

The GPU fingerprint joins `nvidia-smi --query-gpu` (name, driver, clocks, power
limit, temperature, persistence) with a tiny nvcc-built query program
(multiprocessors, compute capability, L2, memory; runtime and driver versions),
because nvidia-smi does not report the SM count.  Both are asked once per process.
"""
from __future__ import annotations

import functools
import platform
import re
import shutil

from .. import config
from ..errors import UserError
from ..runtime.process import QUERY_TIMEOUT, clean_env, run_process

SMI_FIELDS = ("name", "uuid", "driver_version", "pci.bus_id", "clocks.sm", "clocks.max.sm",
              "clocks.mem", "clocks.max.mem", "power.limit", "temperature.gpu", "persistence_mode",
              "pstate", "memory.total")

QUERY_PROGRAM = r"""
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int dev = 0, v = 0, drv = 0, rt = 0;
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) { printf("error\n"); return 1; }
  cudaDriverGetVersion(&drv); cudaRuntimeGetVersion(&rt);
  printf("name=%s\nsms=%d\ncc=%d.%d\nl2_bytes=%d\nglobal_mem=%zu\nshared_per_block=%zu\n",
         p.name, p.multiProcessorCount, p.major, p.minor, p.l2CacheSize, p.totalGlobalMem,
         p.sharedMemPerBlock);
  cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev); printf("sm_clock_khz=%d\n", v);
  cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev); printf("mem_clock_khz=%d\n", v);
  printf("cuda_driver=%d\ncuda_runtime=%d\n", drv, rt);
  return 0;
}
"""


def gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    r = run_process([smi, "-L"], timeout=20)
    return r.ok and "GPU" in r.stdout


def emu_available() -> bool:
    try:
        from ..runtime.emu import build_emu  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: str) -> str:
    if backend == "auto":
        if gpu_present():
            return "gpu"
        if emu_available():
            return "emu"
        raise UserError("no GPU answers and the emu backend is not installed", hint="install t2c fully")
    if backend == "gpu" and not gpu_present():
        raise UserError("--backend gpu: no GPU answers (nvidia-smi -L fails)",
                        hint="use --backend emu on a machine without a GPU")
    if backend == "emu" and not emu_available():
        raise UserError("--backend emu: t2c.runtime.emu is not available", hint="use --backend gpu")
    if backend not in ("gpu", "emu"):
        raise UserError(f"unknown backend '{backend}'", hint="use emu, gpu or auto")
    return backend


@functools.lru_cache(maxsize=2)
def fingerprint(backend: str) -> dict:
    host = {"host": platform.node(), "cpu": _cpu_model(), "os": platform.platform()}
    if backend != "gpu":
        return {"backend": backend, **host, "compiler": _version(config.load().cc)}
    out = {"backend": "gpu", **host, "nvcc": _version(config.load().nvcc or "nvcc", "release")}
    smi = shutil.which("nvidia-smi")
    if smi:
        r = run_process([smi, f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader"], timeout=30)
        if r.ok and r.stdout.strip():
            values = [v.strip() for v in r.stdout.splitlines()[0].split(",")]
            out["smi"] = dict(zip(SMI_FIELDS, values))
    out["properties"] = _query_properties()
    return out


def _query_properties() -> dict:
    from ..runtime.build import BuildError, build
    cfg = config.load()
    if not cfg.nvcc:
        return {"error": "nvcc not found"}
    try:
        exe = build({"query.cu": QUERY_PROGRAM}, ["-O1"], cc=cfg.nvcc, libs=())
    except BuildError as e:
        return {"error": f"query program does not build: {e.log[:200]}"}
    r = run_process([exe], timeout=60)
    if not r.ok:
        return {"error": f"query program failed: {r.describe()} {r.stdout.strip()[:200]}"}
    return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _version(tool: str, marker: str = "") -> str:
    try:
        lines = run_process([tool, "--version"], timeout=QUERY_TIMEOUT, env=clean_env()).stdout.splitlines()
    except OSError:
        return "unknown"
    hit = [l for l in lines if marker in l] if marker else lines
    return (hit or lines or ["unknown"])[0].strip()


_ENTRY = re.compile(r"Compiling entry function '(\S+)' for '(\w+)'")
_USED = re.compile(r"Used (\d+) registers")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_SMEM = re.compile(r"(\d+) bytes smem")
_STACK = re.compile(r"(\d+) bytes stack frame")


def build_figures(log: str) -> dict:
    """Per kernel: registers, spill stores/loads, static shared memory, stack (ptxas -v)."""
    kernels, current = {}, None
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = kernels.setdefault(_demangle(m.group(1)), {"arch": m.group(2)})
            continue
        if current is None:
            continue
        for rx, keys in ((_USED, ("registers",)), (_SPILL, ("spill_stores", "spill_loads")),
                         (_SMEM, ("shared_bytes",)), (_STACK, ("stack_bytes",))):
            m = rx.search(line)
            if m:
                current.update({k: int(v) for k, v in zip(keys, m.groups())})
    return kernels


def _demangle(name: str) -> str:
    m = re.match(r"_Z(\d+)(\w+)", name)
    if m and int(m.group(1)) <= len(m.group(2)):
        return m.group(2)[: int(m.group(1))]
    return name
