"""The GPU's measured ceilings: copy bandwidth and fp64/fp32 FMA rates, once per GPU.

    measure() -> figures;  cached() -> figures | None;  ensure(say);  roofline_pct(...)

`measure` builds and runs one small CUDA program: a grid-stride copy and chains of independent
FMAs (and fp64 tensor-core products on sm_90+), each repeated and timed with CUDA events, the
median kept. The program checks its own results and exits non-zero when they are wrong, so a
number is never the time of work that did not happen. `cached` gives the figures stored for this
GPU (`gpu.fingerprint()`) without measuring; `python -m t2c.runtime.ceilings` measures and
stores them. A roofline fraction is the best possible time (flops over the faster fp64 rate, or
compulsory bytes over the copy bandwidth) over the measured one. docs/bench.md.
"""
from __future__ import annotations

import hashlib
import json
import statistics
import sys
from pathlib import Path

from .. import config
from .build import BuildError, build
from .process import run_process

SOURCE = r"""
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void copy(const double *src, double *dst, long long n)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

__global__ void fill(double *a, long long n)
{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = (double)(i % 1000);
}

template <typename T>
__global__ void chains(T *out, int iters, T b, T c)
{
  T a0 = (T)(threadIdx.x % 7), a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int k = 0; k < iters; k++) {
    a0 = fma(a0, b, c); a1 = fma(a1, b, c); a2 = fma(a2, b, c); a3 = fma(a3, b, c);
    a4 = fma(a4, b, c); a5 = fma(a5, b, c); a6 = fma(a6, b, c); a7 = fma(a7, b, c);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

/* The fp64 tensor cores: four independent m16n8k8 chains per warp (sm_90+; 2 * 16 * 8 * 8 flops
   an instruction).  A and B hold 0.5 and 0.25, so each product adds 8 * 0.125 = 1 to every cell
   and a chain ends exactly at `iters`: the host checks it. */
__global__ void dmma_chains(double *out, int iters)
{
  double c[4][4] = {};
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900   /* emu (no __CUDA_ARCH__) models it */
  const double a = 0.5, b = 0.25;
  for (int k = 0; k < iters; k++)
    for (int q = 0; q < 4; q++)
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                   "{%8, %9}, {%0, %1, %2, %3};" : "+d"(c[q][0]), "+d"(c[q][1]), "+d"(c[q][2]), "+d"(c[q][3])
                   : "d"(a), "d"(a), "d"(a), "d"(a), "d"(b), "d"(b));
#endif
  double s = 0;
  for (int q = 0; q < 4; q++)
    s += c[q][0] + c[q][1] + c[q][2] + c[q][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static int mma_rate(int blocks, int iters, int reps)
{
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  if (major < 9)                                                  /* no m16n8k8 f64: no line */
    return 0;
  double *out;
  cudaMalloc((void **)&out, sizeof(double) * blocks * 256);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  dmma_chains<<<blocks, 256>>>(out, iters);                        /* warm-up */
  printf("fp64_mma_flops %lld\n", 2LL * 16 * 8 * 8 * 4 * iters * (blocks * 256 / 32));
  for (int r = 0; r < reps; r++) {
    cudaEventRecord(t0);
    dmma_chains<<<blocks, 256>>>(out, iters);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    printf("fp64_mma_ms %.6f\n", ms);
  }
  double host = 0;
  cudaMemcpy(&host, out, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(out);
  if (host != 16.0 * iters) {
    fprintf(stderr, "fp64_mma: chains gave %g, not %g\n", host, 16.0 * iters);
    return 1;
  }
  return 0;
}

template <typename T>
static int rate(const char *name, int blocks, int threads, int iters, int reps, T b, T c)
{
  T *out;
  cudaMalloc((void **)&out, sizeof(T) * blocks * threads);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  chains<T><<<blocks, threads>>>(out, iters, b, c);             /* warm-up */
  printf("%s_flops %lld\n", name, 2LL * 8 * iters * blocks * threads);
  for (int r = 0; r < reps; r++) {
    cudaEventRecord(t0);
    chains<T><<<blocks, threads>>>(out, iters, b, c);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    printf("%s_ms %.6f\n", name, ms);
  }
  T host[64], want = 0;
  cudaMemcpy(host, out, sizeof(host) < sizeof(T) * blocks * threads ? sizeof(host) : sizeof(T) * blocks * threads,
             cudaMemcpyDeviceToHost);
  for (int t = 0; t < 1; t++) {                                   /* thread 0's chains, on the host */
    T a[8];
    for (int q = 0; q < 8; q++) a[q] = (T)q;
    for (int k = 0; k < iters; k++)
      for (int q = 0; q < 8; q++) a[q] = fma(a[q], b, c);
    for (int q = 0; q < 8; q++) want += a[q];
  }
  cudaFree(out);
  if (fabs((double)(host[0] - want)) > 1e-3 * (fabs((double)want) + 1)) {
    fprintf(stderr, "%s: chains gave %g, the host %g\n", name, (double)host[0], (double)want);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: ceilings ELEMENTS FMA_ITERS BLOCKS REPS\n");
    return 2;
  }
  long long n = atoll(argv[1]);
  int iters = atoi(argv[2]), blocks = atoi(argv[3]), reps = atoi(argv[4]);
  double *src, *dst;
  if (cudaMalloc((void **)&src, n * sizeof(double)) != cudaSuccess ||
      cudaMalloc((void **)&dst, n * sizeof(double)) != cudaSuccess) {
    fprintf(stderr, "cannot allocate 2 x %lld doubles\n", n);
    return 1;
  }
  fill<<<blocks, 256>>>(src, n);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  copy<<<blocks, 256>>>(src, dst, n);                              /* warm-up */
  printf("copy_bytes %lld\n", 2LL * n * (long long)sizeof(double));
  for (int r = 0; r < reps; r++) {
    cudaEventRecord(t0);
    copy<<<blocks, 256>>>(src, dst, n);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    printf("copy_ms %.6f\n", ms);
  }
  double *back = (double *)malloc(n * sizeof(double));
  cudaMemcpy(back, dst, n * sizeof(double), cudaMemcpyDeviceToHost);
  for (long long i = 0; i < n; i++)
    if (back[i] != (double)(i % 1000)) {
      fprintf(stderr, "copy: element %lld is %g, not %g\n", i, back[i], (double)(i % 1000));
      return 1;
    }
  free(back);
  cudaFree(src);
  cudaFree(dst);
  if (rate<double>("fp64", blocks, 256, iters, reps, 0.999999, 1e-6) ||
      rate<float>("fp32", blocks, 256, iters, reps, 0.999999f, 1e-6f) || mma_rate(blocks, iters / 4, reps))
    return 1;
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "cuda error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
"""

#: The default measurement: 2 x 1 GiB copied, 8 x 4096 FMAs per thread over 132 x 16 blocks.
DEFAULT = {"elements": 1 << 27, "fma_iters": 4096, "blocks": 132 * 16, "reps": 20}


class CeilingsFailed(RuntimeError):
    pass


def parse(stdout: str) -> dict:
    """Rates from the program's lines: medians of the repetitions."""
    values: dict[str, list[float]] = {}
    for line in stdout.splitlines():
        key, _, value = line.partition(" ")
        if value:
            values.setdefault(key, []).append(float(value))
    try:
        ms = {k: statistics.median(values[f"{k}_ms"]) for k in ("copy", "fp64", "fp32")}
        out = {"gbps": values["copy_bytes"][0] / (ms["copy"] * 1e-3) / 1e9,
               "fp64_tflops": values["fp64_flops"][0] / (ms["fp64"] * 1e-3) / 1e12,
               "fp32_tflops": values["fp32_flops"][0] / (ms["fp32"] * 1e-3) / 1e12}
    except (KeyError, ZeroDivisionError, statistics.StatisticsError) as e:
        raise CeilingsFailed(f"the ceilings program printed no usable timings ({e})") from None
    if values.get("fp64_mma_ms"):                       # sm_90+: the fp64 tensor cores
        out["fp64_mma_tflops"] = values["fp64_mma_flops"][0] / (statistics.median(values["fp64_mma_ms"]) * 1e-3) / 1e12
    return out | {"tflops": peak(out)}                 # the chart's default peak: fp64


def measure(sizes: dict | None = None, timeout: float = 300) -> dict:
    """Build and run the program on the GPU; the rates, or CeilingsFailed."""
    cfg = config.load()
    if cfg.nvcc is None:
        raise CeilingsFailed("no nvcc found (install the CUDA toolkit or set T2C_NVCC)")
    s = DEFAULT | (sizes or {})
    try:
        exe = build({"ceilings.cu": SOURCE}, ["-O3", "-arch=native"], cc=cfg.nvcc, libs=())
    except BuildError as e:
        raise CeilingsFailed(f"nvcc failed: {e.log.strip()[-400:]}") from None
    p = run_process([str(exe), *(str(s[k]) for k in ("elements", "fma_iters", "blocks", "reps"))], timeout=timeout)
    if not p.ok:
        raise CeilingsFailed(f"the ceilings program failed: {p.stderr.strip()[-400:] or p.describe()}")
    return parse(p.stdout) | {"how": f"median of {s['reps']}: copy of 2 x {s['elements'] * 8 >> 20} MiB, "
                                     f"8 FMA chains x {s['fma_iters']} per thread, {s['blocks']} blocks of 256"}


def _path() -> Path:
    from .gpu import fingerprint
    key = hashlib.sha256(fingerprint().encode()).hexdigest()[:16]
    return Path(config.load().cache_dir) / "ceilings" / f"{key}.json"


def cached() -> dict | None:
    """The stored ceilings of this GPU, or None (never measures)."""
    try:
        return json.loads(_path().read_text())
    except (OSError, ValueError):
        return None


def ensure(say) -> None:
    """Measure and store this GPU's ceilings when none are stored: the options search orders its
    moves by what limits a candidate against them (generators/evolve/moves.py).  `say(text)`
    tells the user; a failed measurement is said, not raised (the moves then come unordered)."""
    if cached() is not None:
        return
    say("measuring this GPU's ceilings once for --evolve (python -m t2c.runtime.ceilings)")
    try:
        store(measure())
    except CeilingsFailed as e:
        say(f"the ceilings could not be measured ({e}); --evolve tries its moves without knowing "
            "what limits a candidate")


def store(figures: dict) -> Path:
    from .gpu import fingerprint
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures | {"gpu": fingerprint()}, indent=2))
    return path


def peak(ceilings: dict, dtype: str = "double") -> float | None:
    """The fastest rate this GPU was measured to do the dtype's arithmetic at, in TF/s, both
    sides counting an FMA as 2 flops: for double the larger of the FMA units' and the tensor
    cores' (a kernel on the tensor cores would otherwise exceed 100% of its roof)."""
    if dtype == "float":
        return ceilings.get("fp32_tflops")
    rates = [r for r in (ceilings.get("fp64_tflops"), ceilings.get("fp64_mma_tflops")) if r]
    return max(rates) if rates else None


def roofline_pct(flops: int, nbytes: int, ms: float, ceilings: dict, dtype: str = "double") -> float | None:
    """100 x the kernel's best possible time on this GPU over its measured time."""
    top = peak(ceilings, dtype)
    if not ms or not top or not ceilings.get("gbps"):
        return None
    best_s = max(flops / (top * 1e12), nbytes / (ceilings["gbps"] * 1e9))
    return 100.0 * best_s / (ms * 1e-3)


def main() -> int:
    from .gpu import gpu_present
    if not gpu_present():
        print("t2c ceilings: no GPU (nvidia-smi lists none); nothing measured", file=sys.stderr)
        return 1
    try:
        figures = measure()
    except CeilingsFailed as e:
        print(f"t2c ceilings: {e}", file=sys.stderr)
        return 1
    path = store(figures)
    print(json.dumps(figures, indent=2))
    print(f"stored in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
