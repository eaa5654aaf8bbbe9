"""The candidate harness: a driver program around a candidate `.cu`, built for gpu or emu.

A candidate exports, with C linkage (DESIGN §3):

    RET NAME(sizes..., scalars..., T *array...)         drop-in on host pointers
    RET NAME_device(sizes..., scalars..., T *array...)  same parameters, device pointers

`candidate_driver(kernel)` is the CUDA C++ text of a driver speaking the reference
driver's file protocol (see reference.py), with modes:

    prog host DIR SIZE...          calls NAME on host arrays
    prog device DIR SIZE...        copies in, calls NAME_device, copies out
    prog bench DIR REPS SIZE...    device mode REPS times after warm-up; before each call
                                   the inputs are copied in afresh and L2 is flushed;
                                   prints `kernel_ms V` per repetition and `e2e_ms V`
                                   for one timed call of NAME

Every mode writes the outputs to DIR/out_NAME.bin.  CUDA errors end the program
with exit 5 and `t2c: cuda error: ...` on stderr.  The driver is its own
translation unit: the candidate cannot see its symbols, and the static rung
forbids the candidate file and environment access, so it cannot reach the files.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import config
from ..ir import Kernel
from ..runtime.build import BuildError
from ..runtime.process import ProcessResult, run_process
from .reference import _read_all, _write, check_constraints

DRIVER_PRELUDE = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define T2C_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "t2c: cuda error: %s at driver line %d\n", cudaGetErrorString(e_), __LINE__); \
  exit(5); } } while (0)

static void *t2c_load(const char *dir, const char *name, size_t bytes, int required)
{
  char path[4096];
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p) { fprintf(stderr, "t2c: out of host memory for %s\n", name); exit(4); }
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (required) { fprintf(stderr, "t2c: missing input %s\n", path); exit(3); }
    return p;
  }
  if (fread(p, 1, bytes, f) != bytes || fgetc(f) != EOF) {
    fprintf(stderr, "t2c: %s does not hold exactly %zu bytes\n", path, bytes);
    exit(3);
  }
  fclose(f);
  return p;
}

static void t2c_store(const char *dir, const char *name, const void *p, size_t bytes)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/out_%s.bin", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "t2c: cannot write %s\n", path); exit(3); }
  fclose(f);
}

static void *t2c_device_copy(const void *host, size_t bytes)
{
  void *d = NULL;
  T2C_CHECK(cudaMalloc(&d, bytes ? bytes : 1));
  T2C_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

/* Evicts L2 (60 MiB on an H200) between timed repetitions. */
static void t2c_flush_l2(void)
{
  static void *buf = NULL;
  const size_t bytes = (size_t)256 << 20;
  if (!buf) T2C_CHECK(cudaMalloc(&buf, bytes));
  T2C_CHECK(cudaMemset(buf, 0, bytes));
}
"""


def _decl(k: Kernel, suffix: str) -> str:
    ret = k.returns.dtype if k.returns else "void"
    params = []
    for p in k.params:
        arr = next((a for a in k.arrays if a.name == p), None)
        sc = next((s for s in k.scalars if s.name == p), None)
        params.append(f"{arr.dtype} *{p}" if arr else f"{sc.dtype} {p}" if sc else f"int {p}")
    return f'extern "C" {ret} {k.name}{suffix}({", ".join(params)});'


def candidate_driver(k: Kernel) -> str:
    ret = k.returns
    ins = [s for s in k.scalars if s.intent == "in"]
    L = [DRIVER_PRELUDE, _decl(k, ""), _decl(k, "_device"), "",
         "int main(int argc, char **argv)", "{"]
    nsz = len(k.sizes)
    L.append("  int bench = argc > 1 && strcmp(argv[1], \"bench\") == 0;")
    L.append(f"  if (argc != {3 + nsz} + bench) {{ fprintf(stderr, \"usage: %s host|device DIR SIZES"
             f" | bench DIR REPS SIZES\\n\", argv[0]); return 2; }}")
    L.append("  const char *mode = argv[1], *dir = argv[2];")
    L.append("  int reps = bench ? atoi(argv[3]) : 1, first = 3 + bench;")
    for i, s in enumerate(k.sizes):
        L.append(f"  int {s.name} = atoi(argv[first + {i}]);")
    for s in ins:
        L.append(f"  {s.dtype} {s.name} = *({s.dtype} *)t2c_load(dir, \"{s.name}\", sizeof({s.dtype}), 1);")
    for a in k.arrays:
        count = " * ".join(f"(size_t)({e})" for e in a.shape) or "1"
        L.append(f"  size_t {a.name}_bytes = {count} * sizeof({a.dtype});")
        L.append(f"  {a.dtype} *{a.name} = ({a.dtype} *)t2c_load(dir, \"{a.name}\", {a.name}_bytes, "
                 f"{0 if a.intent == 'out' else 1});")
    host_args = ", ".join(k.params)
    dev_args = ", ".join(f"d_{p}" if any(a.name == p for a in k.arrays) else p for p in k.params)
    keep = f"{ret.dtype} t2c_ret = " if ret else ""
    L.append("  if (strcmp(mode, \"host\") == 0) {")
    L.append(f"    {keep}{k.name}({host_args});")
    L.append("    T2C_CHECK(cudaGetLastError());")
    L.append("  } else {")
    for a in k.arrays:
        L.append(f"    {a.dtype} *d_{a.name} = ({a.dtype} *)t2c_device_copy({a.name}, {a.name}_bytes);")
    L.append("    cudaEvent_t t2c_e0, t2c_e1;")
    L.append("    T2C_CHECK(cudaEventCreate(&t2c_e0));")
    L.append("    T2C_CHECK(cudaEventCreate(&t2c_e1));")
    L.append("    int warm = bench ? 2 : 0;")
    L.append(f"    {(ret.dtype + ' t2c_ret = 0;') if ret else ''}")
    L.append("    for (int r = 0; r < warm + reps; r++) {")
    L.append("      if (r > 0) {   /* fresh inputs: inout arrays were changed by the last call */")
    for a in k.arrays:
        L.append(f"        T2C_CHECK(cudaMemcpy(d_{a.name}, {a.name}, {a.name}_bytes, cudaMemcpyHostToDevice));")
    L.append("      }")
    L.append("      if (bench) t2c_flush_l2();")
    L.append("      T2C_CHECK(cudaDeviceSynchronize());")
    L.append("      T2C_CHECK(cudaEventRecord(t2c_e0));")
    L.append(f"      {'t2c_ret = ' if ret else ''}{k.name}_device({dev_args});")
    L.append("      T2C_CHECK(cudaEventRecord(t2c_e1));")
    L.append("      T2C_CHECK(cudaEventSynchronize(t2c_e1));")
    L.append("      T2C_CHECK(cudaGetLastError());")
    L.append("      float ms = 0;")
    L.append("      T2C_CHECK(cudaEventElapsedTime(&ms, t2c_e0, t2c_e1));")
    L.append("      if (bench && r >= warm) printf(\"kernel_ms %.6f\\n\", ms);")
    L.append("    }")
    for a in k.arrays:
        if a.intent != "in":
            L.append(f"    T2C_CHECK(cudaMemcpy({a.name}, d_{a.name}, {a.name}_bytes, cudaMemcpyDeviceToHost));")
    L.append("    if (bench) {   /* one end-to-end call of the drop-in, on the original inputs */")
    for a in k.arrays:
        if a.intent != "out":
            L.append(f"      {a.dtype} *e_{a.name} = ({a.dtype} *)t2c_load(dir, \"{a.name}\", {a.name}_bytes, 1);")
        else:
            L.append(f"      {a.dtype} *e_{a.name} = ({a.dtype} *)calloc({a.name}_bytes ? {a.name}_bytes : 1, 1);")
    e2e_args = ", ".join(f"e_{p}" if any(a.name == p for a in k.arrays) else p for p in k.params)
    L.append("      T2C_CHECK(cudaDeviceSynchronize());")
    L.append("      T2C_CHECK(cudaEventRecord(t2c_e0));")
    L.append(f"      {k.name}({e2e_args});")
    L.append("      T2C_CHECK(cudaEventRecord(t2c_e1));")
    L.append("      T2C_CHECK(cudaEventSynchronize(t2c_e1));")
    L.append("      float ms = 0;")
    L.append("      T2C_CHECK(cudaEventElapsedTime(&ms, t2c_e0, t2c_e1));")
    L.append("      printf(\"e2e_ms %.6f\\n\", ms);")
    L.append("    }")
    L.append("  }")
    if ret:
        L.append(f"  t2c_store(dir, \"return\", &t2c_ret, sizeof({ret.dtype}));")
    for a in k.arrays:
        if a.intent != "in":
            L.append(f"  t2c_store(dir, \"{a.name}\", {a.name}, {a.name}_bytes);")
    L.append("  return 0;")
    L.append("}")
    return "\n".join(L) + "\n"


# -- building ------------------------------------------------------------------------------

@dataclass(frozen=True)
class CandidateBuild:
    exe: Path
    log: str                  # compiler output (ptxas register/spill/shared figures for gpu)
    command: tuple[str, ...]


def gpu_arch() -> str:
    """`native` when a GPU answers, else a fixed Hopper target (build-only machines)."""
    smi = shutil.which("nvidia-smi")
    if smi and subprocess.run([smi, "-L"], capture_output=True).returncode == 0:
        return "native"
    return "sm_90"


def build_candidate(k: Kernel, cu_source: str, backend: str, *, sanitize: bool = False,
                    cache_dir: Path | None = None) -> CandidateBuild:
    """Compile driver + candidate; raises BuildError with the compiler's log."""
    cfg = config.load()
    driver = candidate_driver(k)
    cache = Path(cache_dir or cfg.cache_dir) / "cand"
    if backend == "gpu":
        if not cfg.nvcc:
            raise BuildError("nvcc not found", "install the CUDA toolkit or run `make setup`", [])
        flags = ["-O3", f"-arch={gpu_arch()}", "-Xptxas", "-v", "-lineinfo"]
        tag = repr(("gpu", cfg.nvcc, flags))
    else:
        flags = ["sanitize"] if sanitize else []
        tag = repr(("emu", flags))
    key = hashlib.sha256((driver + "\0" + cu_source + "\0" + tag).encode()).hexdigest()[:24]
    out = cache / key
    exe = out / "prog"
    if exe.exists():
        return CandidateBuild(exe, (out / "build.log").read_text(), tuple())
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        tmp = Path(tmp)
        (tmp / "driver.cu").write_text(driver)
        (tmp / "candidate.cu").write_text(cu_source)
        if backend == "gpu":
            cmd = [cfg.nvcc, *flags, str(tmp / "driver.cu"), str(tmp / "candidate.cu"), "-o", str(tmp / "prog")]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            log = proc.stdout + proc.stderr
            if proc.returncode != 0:
                raise BuildError("nvcc failed", log, cmd)
        else:
            from ..runtime.emu import build_emu
            res = build_emu([tmp / "driver.cu", tmp / "candidate.cu"], tmp / "prog", sanitize=sanitize)
            log, cmd = res.log, list(res.command)
            if not res.ok:
                raise BuildError("emulation build failed", log, cmd)
        (out / "build.log").write_text(log)
        (tmp / "prog").replace(exe)
    return CandidateBuild(exe, log, tuple(cmd))


# -- running -------------------------------------------------------------------------------

@dataclass(frozen=True)
class CandidateRun:
    process: ProcessResult
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    kernel_ms: tuple[float, ...] = ()
    e2e_ms: float | None = None


def scrubbed_env(extra: dict | None = None) -> dict:
    """What a candidate sees of the environment: no keys, no HOME, only what it needs."""
    import os
    keep = ("PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "LANG")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["HOME"] = "/nonexistent"
    env.update(extra or {})
    return env


def run_candidate(k: Kernel, build: CandidateBuild, sizes: dict[str, int], inputs: dict, *,
                  mode: str = "device", reps: int = 1, poison: dict | None = None,
                  timeout: float = 60.0, env: dict | None = None) -> CandidateRun:
    """Run a built candidate in a scratch folder holding only its inputs.

    `poison` gives starting contents for `out` arrays (e.g. NaN), so that an element
    the candidate never writes cannot pass."""
    check_constraints(k, sizes)
    size_args = [str(sizes[s.name]) for s in k.sizes]
    with tempfile.TemporaryDirectory(prefix="t2c-cand-") as tmp:
        d = Path(tmp)
        for name, value in {**inputs, **(poison or {})}.items():
            _write(d / f"{name}.bin", value)
        argv = [build.exe, mode, d, *([str(reps)] if mode == "bench" else []), *size_args]
        proc = run_process(argv, cwd=d, timeout=timeout, env=scrubbed_env(env))
        if not proc.ok:
            return CandidateRun(proc)
        try:
            outputs = _read_all(k, sizes, d, "out_", inputs_only=False)
        except (OSError, ValueError) as e:
            return CandidateRun(proc, {}, ())
        kms = tuple(float(l.split()[1]) for l in proc.stdout.splitlines() if l.startswith("kernel_ms "))
        e2e = next((float(l.split()[1]) for l in proc.stdout.splitlines() if l.startswith("e2e_ms ")), None)
        return CandidateRun(proc, outputs, kms, e2e)
