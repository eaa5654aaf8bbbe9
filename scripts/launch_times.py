"""Which launch of a candidate takes the time: each launch of NAME_device alone, on one GPU.

    source scripts/gpu_env.sh; python3 scripts/launch_times.py KERNEL [...]    on a GPU machine
    env: DATASET (LARGE), REPS (20), ARCH (nvcc's -arch: native), FLUSH (1: evict L2 before each rep),
         OPTIONS (the inside of dict(...) for PolyOptions.load, e.g. "async_stages=3, heavy_first=False"
         or '**{"tiles.staging.heavy_first": False}'; default none)

For each kernel, the poly candidate at default options (or OPTIONS) is built once as it is and once per
launch statement in NAME_device with every other launch statement removed (`name<<<...>>>(...);`
lines), each with a small main that fills the arrays with values in [0.5, 1) and the scalars
with 1.5, calls NAME_device twice to warm up, then REPS times between CUDA events (each after a
256 MiB memset that evicts L2, as the bench rung's flush does); it prints the median ms of each.  Only the times mean anything (a launch alone computes on inputs its
predecessors did not prepare); no ladder runs.  A benchmark script, not a test: it prints figures.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from t2c.frontends.c import read_c
from t2c.generators.poly import PolyOptions, generate
from t2c.ir import abi

ROOT = Path(__file__).resolve().parent.parent
REPS = int(os.environ.get("REPS", "20"))
FLUSH = os.environ.get("FLUSH", "1") == "1"
_LAUNCH = re.compile(r"^\s*(\w+)<<<.*>>>\(.*\);\s*$")


def main_text(k, sizes) -> str:
    decl = []
    for arr in k.arrays:
        count = abi.count(str(sizes.get(e, e)) for e in arr.shape)
        decl += [f"  {arr.dtype} *{arr.name}; cudaMalloc((void **)&{arr.name}, {abi.nbytes(arr.dtype, count)});",
                 f"  fill<<<1024, 256>>>({arr.name}, {count});"]
    call = abi.call(k, "_device", value=lambda p: str(sizes[p]) if p in sizes else "1.5") + ";"
    return "\n".join([
        "#include <cstdio>", "#include <vector>", "#include <algorithm>",
        "template <class T> __global__ void fill(T *p, size_t n) {",
        "  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n; e += (size_t)gridDim.x * blockDim.x)",
        "    p[e] = (T)(0.5 + 0.5 * ((e * 2654435761u) % 1000) / 1000.0);", "}",
        "int main() {", *decl, f"  {call}", f"  {call}", "  cudaDeviceSynchronize();",
        "  char *flush; cudaMalloc((void **)&flush, 256 << 20);",
        "  std::vector<float> ms;", f"  for (int rep_ = 0; rep_ < {REPS}; rep_++) {{",
        *(["    cudaMemset(flush, rep_, 256 << 20);   /* L2 evicted, as the bench rung does */"] if FLUSH else []),
        "    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);",
        f"    cudaEventRecord(a); {call} cudaEventRecord(b); cudaEventSynchronize(b);",
        "    float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);", "  }",
        "  std::sort(ms.begin(), ms.end());",
        "  printf(\"%.4f\\n\", ms[ms.size() / 2]);", "  return cudaGetLastError() != cudaSuccess;", "}"])


def timed(text: str, tmp: Path, tag: str) -> float | None:
    src, exe = tmp / f"{tag}.cu", tmp / tag
    src.write_text(text)
    build = subprocess.run(["nvcc", "-O3", f"-arch={os.environ.get('ARCH', 'native')}", "-o", str(exe), str(src)], capture_output=True, text=True)
    if build.returncode:
        print(build.stderr[-2000:], file=sys.stderr)
        return None
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    return float(run.stdout.split()[-1]) if run.returncode == 0 and run.stdout.strip() else None


def main(names):
    sources = {p.parent.name: p for p in (ROOT / "corpora" / "polybench").rglob("*.c") if p.parent.name == p.stem}
    dataset = os.environ.get("DATASET", "LARGE")
    for name in names:
        k = read_c(sources[name])
        sizes = k.dataset_sizes(dataset)
        text = generate(k, PolyOptions.load(eval(f"dict({os.environ.get('OPTIONS', '')})"), "OPTIONS"))
        lines = text.splitlines()
        start = next(n for n, line in enumerate(lines) if line.startswith('extern "C"') and f"{k.name}_device(" in line)
        launches = [n for n in range(start, len(lines)) if _LAUNCH.match(lines[n]) and not lines[n].lstrip().startswith("//")]
        harness = main_text(k, sizes)
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            print(f"{name:12s} all launches {timed(text + harness, tmp, 'all')} ms  ({dataset}, median of {REPS}; "
                  f"{os.environ.get('OPTIONS') or 'default options'})")
            for n in launches:
                alone = "\n".join(line if m == n or m not in launches else ";   /* (timed apart) */"
                                  for m, line in enumerate(lines)) + "\n" + harness
                print(f"{name:12s}   {_LAUNCH.match(lines[n])[1]:28s} {timed(alone, tmp, f'l{n}')} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
