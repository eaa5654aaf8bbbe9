"""trisolv's blocked substitution kernel (substitution.py) with one part cut or changed at a time:
where the time of a diagonal block goes.  A probe, not a check: the cut variants compute wrong x.

    .venv/bin/python scripts/substitution_probe.py [DIR]      (here: writes DIR, default gpu_tmp/subprobe)
    bash DIR/run.sh                                          (on the GPU machine, from the repository root)

Writes each variant of `t2c gen`'s trisolv candidate with a main that times
kernel_trisolv_device at n = 2000 (LARGE; PolyBench's L, 20 timed calls after 5) and prints the
median, the minimum and a checksum of x; run.sh builds them all at once and runs each twice.
Variants: the candidate; the one-block kernel instead; without the touch of the diagonal block,
phase 1 (warp 0) or phase 2 (the cells past the block); a barrier after the touch; the pivot in
the lane that owns its cell; the read-only array through the read-only path (`__restrict__`);
a small shared-memory carveout (more L1); the division made a product (its latency). And three
hand-written sketches of the chained form (substitution.chained_kernel's first shape): a warp per
32 cells waiting on flags (`chain`: a volatile spin, `chain_atomic`: an atomic one, `chain_pf`:
L1 prefetches of the next rows), `chain_pre` with an earlier block's reads loaded first.
reports/h200-chained-substitution-19/ has blocked, chain and chain_pre measured.
"""
import sys
from pathlib import Path

from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.options import DEFAULT

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "gpu_tmp" / "subprobe")
MAIN = r'''
#include <cstdio>
#include <vector>
#include <algorithm>
int main()
{
  const int n = 2000;
  std::vector<double> L((size_t)n * n), x(n), b(n);
  for (int i = 0; i < n; i++) {
    b[i] = i;
    for (int j = 0; j <= i; j++) L[(size_t)i * n + j] = (double)(i + n - j + 1) * 2 / n;
  }
  double *dL, *dx, *db;
  cudaMalloc(&dL, sizeof(double) * n * n); cudaMalloc(&dx, sizeof(double) * n); cudaMalloc(&db, sizeof(double) * n);
  cudaMemcpy(dL, L.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), sizeof(double) * n, cudaMemcpyHostToDevice);
  BEFORE;
  cudaEvent_t a, z; cudaEventCreate(&a); cudaEventCreate(&z);
  std::vector<float> t;
  for (int r = 0; r < 25; r++) {
    cudaEventRecord(a); kernel_trisolv_device(n, dL, dx, db); cudaEventRecord(z); cudaEventSynchronize(z);
    float ms; cudaEventElapsedTime(&ms, a, z);
    if (r >= 5) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaMemcpy(x.data(), dx, sizeof(double) * n, cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  printf("%-12s median %.4f ms  min %.4f  checksum %.12g  %s\n", VARIANT, t[t.size() / 2], t[0], s,
         cudaGetErrorString(cudaGetLastError()));
}
'''
WARP0 = "    if (threadIdx.x < 32) {   /* warp 0"
PIVOT = "        if (threadIdx.x == 0)\n          trisolv_seq_x_at(n, L, x, i);"
VARIANTS = {
    "blocked": [],
    "oneblock": [("if (poly_blocked <= (size_t)poly_shared &&", "if (false &&")],
    "no_touch": [("if (poly_k < poly_count && poly_m < poly_count) {", "if (false) {")],
    "no_phase1": [(WARP0, "    if (false) {   /* warp 0")],
    "no_phase2": [("poly_c < (int)((size_t)(n))", "poly_c < 0")],
    "only_touch": [(WARP0, "    if (false) {   /* warp 0"), ("poly_c < (int)((size_t)(n))", "poly_c < 0")],
    "sync_touch": [(WARP0, "    __syncthreads();\n" + WARP0)],
    "owner_pivot": [(PIVOT, PIVOT.replace("threadIdx.x == 0", "(int)threadIdx.x == poly_k"))],
    "restrict": [("trisolv_loop_i_blocked(int n, const double *L,", "trisolv_loop_i_blocked(int n, const double *__restrict__ L,")],
    "carveout": [],
    "no_div": [("x[i] = x[i] / L[(i * n) + i];", "x[i] = x[i] * L[(i * n) + i];")],
    "chain": [],
    "chain_atomic": [],
    "chain_pf": [],
    "chain_pre": [],
}
# A hand-written sketch of a multi-block form: block b (in the order blocks start: a ticket)
# owns the 32 cells of diagonal block b; it applies the finished blocks' updates to its cells
# in order, waiting on each block's flag, then solves its own diagonal block and publishes.
CHAIN = r'''
__device__ int poly_chain_sync[1 + 8192];
__global__ void __launch_bounds__(32) trisolv_loop_i_chain(int n, const double *L, double *x_global, int *poly_sync)
{
  extern __shared__ double4 poly_resident[];
  double *x = (double *)poly_resident;
  __shared__ int poly_ticket;
  const int lane = threadIdx.x;
  if (lane == 0) poly_ticket = atomicAdd(poly_sync, 1);
  __syncwarp();
  const int b = poly_ticket, first = b * 32, count = min(32, n - first);
  int *flags = poly_sync + 1;
  if (lane < count) x[first + lane] = x_global[first + lane];
  for (int k = 0; k < b; k++) {
    const int kf = k * 32;
    PREFETCH
    if (lane == 0) { while (WAIT == 0) ; __threadfence(); }
    __syncwarp();
    x[kf + lane] = __ldcg(&x_global[kf + lane]);
    __syncwarp();
    if (lane < count)
      for (int kk = 0; kk < 32; kk++) { const int i = kf + kk; trisolv_update_x_2_at(n, L, x, i, first + lane - (i + 1)); }
  }
  __syncwarp();
  for (int kk = 0; kk < count; kk++) {
    const int i = first + kk;
    if (lane == 0) trisolv_seq_x_at(n, L, x, i);
    __syncwarp();
    if (lane < count) trisolv_update_x_2_at(n, L, x, i, first + lane - (i + 1));
    __syncwarp();
  }
  if (lane < count) x_global[first + lane] = x[first + lane];
  __threadfence();
  __syncwarp();
  if (lane == 0) atomicExch(&flags[b], 1);
}
static bool chain_launch(int n, const double *L, double *x)
{
  static int *sync = NULL;
  if (!sync) cudaGetSymbolAddress((void **)&sync, poly_chain_sync);
  const int blocks = (n + 31) / 32;
  const size_t smem = (size_t)n * sizeof(double);
  cudaFuncSetAttribute(trisolv_loop_i_chain, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  cudaMemsetAsync(sync, 0, (1 + blocks) * sizeof(int));
  trisolv_loop_i_chain<<<blocks, 32, smem>>>(n, L, x, sync);
  return true;
}
'''
CHAIN_SPIN = {"chain": ("((volatile int *)flags)[k]", ""),
              "chain_atomic": ("atomicAdd(&flags[k], 0)", ""),
              "chain_pf": ("((volatile int *)flags)[k]",
                           "if (lane < count) { const double *r = L + (size_t)(first + lane) * n + kf; "
                           "asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(r)); "
                           "asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(r + 16)); }"),
              "chain_pre": ("((volatile int *)flags)[k]", "")}
# chain_pre: the earlier block's reads of L loaded into registers first (by hand), then its updates
PRE = ('''    if (lane < count)
      for (int kk = 0; kk < 32; kk++) { const int i = kf + kk; trisolv_update_x_2_at(n, L, x, i, first + lane - (i + 1)); }''',
       '''    if (lane < count) {
      double v[32];
#pragma unroll
      for (int kk = 0; kk < 32; kk++) v[kk] = L[(size_t)(first + lane) * n + kf + kk];
      double a = x[first + lane];
#pragma unroll
      for (int kk = 0; kk < 32; kk++) a -= v[kk] * x[kf + kk];
      x[first + lane] = a;
    }''')


def main() -> None:
    k = read_kernel(ROOT / "corpora/polybench/linear-algebra/solvers/trisolv/trisolv.c")
    text = generate(k, DEFAULT.replace({"one_block.substitution": "blocked"}))
    OUT.mkdir(parents=True, exist_ok=True)
    for name, edits in VARIANTS.items():
        src = text
        for old, new in edits:
            assert old in src, f"{name}: the candidate no longer has {old!r}"
            src = src.replace(old, new)
        if name in CHAIN_SPIN:
            wait, prefetch = CHAIN_SPIN[name]
            host = "if (poly_blocked <= (size_t)poly_shared &&"
            src = src.replace("extern \"C\" void kernel_trisolv_device",
                              CHAIN.replace("WAIT", wait).replace("PREFETCH", prefetch)
                              + "\nextern \"C\" void kernel_trisolv_device")
            src = src.replace(host, "if (chain_launch(n, L, x))\n      ;\n    else " + host)
            if name == "chain_pre":
                assert PRE[0] in src
                src = src.replace(*PRE)
        before = ("cudaFuncSetAttribute(trisolv_loop_i_blocked, cudaFuncAttributePreferredSharedMemoryCarveout, 25)"
                  if name == "carveout" else "(void)0")
        (OUT / f"{name}.cu").write_text(src + f'\n#define VARIANT "{name}"\n#define BEFORE {before}\n' + MAIN)
    rel = OUT.relative_to(ROOT) if OUT.is_relative_to(ROOT) else OUT
    (OUT / "run.sh").write_text(
        f"cd {rel}\n"
        "for f in *.cu; do nvcc -O3 -arch=sm_90 -w -o ${f%.cu} $f & done; wait\n"
        "for round in 1 2; do for f in *.cu; do ./${f%.cu}; done; done\n")
    print(f"{len(VARIANTS)} variants in {rel}; on the GPU machine: bash {rel}/run.sh")


if __name__ == "__main__":
    main()
