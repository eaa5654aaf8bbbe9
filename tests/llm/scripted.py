"""Scripted model answers for the fake server: good kernels, broken ones, cheats, an IS.

`responder(request)` reads the conversation the way a model would (which kernel, how many
times t2c has sent feedback) and answers deterministically, so a run and its replay see
the same answers whatever order the batch's workers ask in:

    relu       first a kernel that does not compile, then (after the build error) a good one
    axpy       first a wrong result (y = a*x, the + y forgotten), then a good one
    gemv       first a cheat (only rows below 7, MINI's m, are computed), then a good one
    histogram  its IS (prose only): first one calling bzero, which t2c refuses, then a loop
               nest it accepts; its kernel: atomics, right the first time
    stream_compaction: its IS (prose only), right the first time
    any other kernel: t2c's poly candidate for the reference in the prompt (`compiled`),
               so that a whole corpus runs through the model path

`loop_responder` replays the multi-round conversation of docs/llm.md's walkthrough for axpy
(a kernel that writes zeros, a racy one, a fixed one, a faster one, a slower one), and
`SCENARIOS` the eight endpoints of issue #38.  Run as a program, this module serves either
on a local port, so `t2c gen` can be pointed at it like at vLLM or Ollama:

    python tests/llm/scripted.py --port 8765 [--loop]
"""
from __future__ import annotations

import re

RELU = """#include <cuda_runtime.h>
__global__ void relu_k(int n, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
extern "C" void relu_device(int n, float *x, float *y)
{
  if (n > 0) relu_k<<<(n + 255) / 256, 256>>>(n, x, y);
}
extern "C" void relu(int n, float *x, float *y)
{
  size_t b = (size_t)n * sizeof(float);
  float *dx, *dy;
  cudaMalloc((void **)&dx, b ? b : 1);
  cudaMalloc((void **)&dy, b ? b : 1);
  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
  relu_device(n, dx, dy);
  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
"""
RELU_BROKEN = RELU.replace("if (i < n) y[i] = fmaxf(x[i], 0.0f);", "if (i < n) y[i] = fmaxf(x[i], 0.0f)  /* ; */")

AXPY = """#include <cuda_runtime.h>
__global__ void axpy_k(int n, float a, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" void axpy_device(int n, float a, float *x, float *y)
{
  if (n > 0) axpy_k<<<(n + 127) / 128, 128>>>(n, a, x, y);
}
extern "C" void axpy(int n, float a, float *x, float *y)
{
  size_t b = (size_t)n * sizeof(float);
  float *dx, *dy;
  cudaMalloc((void **)&dx, b ? b : 1);
  cudaMalloc((void **)&dy, b ? b : 1);
  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
  axpy_device(n, a, dx, dy);
  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
"""
AXPY_WRONG = AXPY.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i];")

GEMV = """#include <cuda_runtime.h>
__global__ void gemv_k(int m, int n, const float *A, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  double acc = 0.0;
  for (int j = 0; j < n; j++) acc += A[(size_t)i * n + j] * x[j];
  y[i] = (float)acc;
}
extern "C" void gemv_device(int m, int n, float *A, float *x, float *y)
{
  if (m > 0) gemv_k<<<(m + 63) / 64, 64>>>(m, n, A, x, y);
}
extern "C" void gemv(int m, int n, float *A, float *x, float *y)
{
  size_t bA = (size_t)m * n * sizeof(float), bx = (size_t)n * sizeof(float), by = (size_t)m * sizeof(float);
  float *dA, *dx, *dy;
  cudaMalloc((void **)&dA, bA ? bA : 1);
  cudaMalloc((void **)&dx, bx ? bx : 1);
  cudaMalloc((void **)&dy, by ? by : 1);
  cudaMemcpy(dA, A, bA, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, bx, cudaMemcpyHostToDevice);
  gemv_device(m, n, dA, dx, dy);
  cudaMemcpy(y, dy, by, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dx);
  cudaFree(dy);
}
"""
# The cheat does the work only for the rows the MINI preset has, and zeroes the rest.
GEMV_CHEAT = GEMV.replace("  if (i >= m) return;\n",
                          "  if (i >= m) return;\n  if (i >= 7) { y[i] = 0.0f; return; }\n")

HISTOGRAM = """#include <cuda_runtime.h>
__global__ void hist_zero(int nbins, int *hist)
{
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < nbins) hist[v] = 0;
}
__global__ void hist_count(int n, int nbins, const int *x, int *hist)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] >= 0 && x[i] < nbins) atomicAdd(&hist[x[i]], 1);
}
extern "C" void histogram_device(int n, int nbins, int *x, int *hist)
{
  if (nbins > 0) hist_zero<<<(nbins + 127) / 128, 128>>>(nbins, hist);
  if (n > 0) hist_count<<<(n + 127) / 128, 128>>>(n, nbins, x, hist);
}
extern "C" void histogram(int n, int nbins, int *x, int *hist)
{
  size_t bx = (size_t)n * sizeof(int), bh = (size_t)nbins * sizeof(int);
  int *dx, *dh;
  cudaMalloc((void **)&dx, bx ? bx : 1);
  cudaMalloc((void **)&dh, bh ? bh : 1);
  cudaMemcpy(dx, x, bx, cudaMemcpyHostToDevice);
  histogram_device(n, nbins, dx, dh);
  cudaMemcpy(hist, dh, bh, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dh);
}
"""
HISTOGRAM_IS_REFUSED = """void histogram(int n, int nbins, int x[n], int hist[nbins])
{
  bzero(hist, nbins * sizeof(int));
  for (int i = 0; i < n; i++)
    if (x[i] >= 0 && x[i] < nbins) hist[x[i]] += 1;
}
"""
HISTOGRAM_IS = """void histogram(int n, int nbins, int x[n], int hist[nbins])
{
  for (int v = 0; v < nbins; v++) {
    hist[v] = 0;
    for (int i = 0; i < n; i++)
      if (x[i] == v) hist[v] += 1;
  }
}
"""

# The other prose-only spec's IS, as a model would write it from its prose.
COMPACTION_IS = """void stream_compaction(int n, float x[n], float y[n], int *count)
{
  int m = 0;
  for (int i = 0; i < n; i++) y[i] = 0.0f;
  for (int i = 0; i < n; i++)
    if (x[i] > 0.0f) {
      y[m] = x[i];
      m++;
    }
  count[0] = m;
}
"""

#: kernel -> answers by the number of times t2c has sent feedback (the last one repeats).
KERNELS = {"relu": [RELU_BROKEN, RELU], "axpy": [AXPY_WRONG, AXPY], "gemv": [GEMV_CHEAT, GEMV],
           "histogram": [HISTOGRAM]}
IS_ANSWERS = {"histogram": [HISTOGRAM_IS_REFUSED, HISTOGRAM_IS],
              "stream_compaction": [COMPACTION_IS]}


def compiled(prompt: str) -> str | None:
    """Any other kernel: the whole-corpus runs' stand-in for a model that knows its craft —
    t2c's own poly compiler on the reference the prompt shows (None: no reference there)."""
    import tempfile
    from pathlib import Path
    from t2c.frontends.c import read_c
    from t2c.generators.poly import generate
    m = re.search(r"```c\n(.*?)```", prompt, re.S)
    if not m:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reference.c"
        path.write_text(m.group(1))
        return generate(read_c(path))


def fenced(code: str, lang: str = "cuda") -> str:
    return f"Here is the implementation.\n\n```{lang}\n{code}```\n"


def responder(request: dict) -> dict:
    messages = request.get("messages") or []
    first = next((m["content"] for m in messages if m["role"] == "user"), "")
    feedback = sum(m["role"] == "user" for m in messages) - 1
    if "has no formal part yet" in first:
        name = re.search(r"^name:\s*(\w+)", first, re.M).group(1)
        answers, lang = IS_ANSWERS[name], "c"
    else:
        m = re.search(r"implementation of the kernel `(\w+)`", first)
        if m and m.group(1) not in KERNELS and (source := compiled(first)):
            return {"text": fenced(source)}
        if not m or m.group(1) not in KERNELS:
            return {"text": "I am not sure what you mean."}       # no code at all
        answers, lang = KERNELS[m.group(1)], "cuda"
    return {"text": fenced(answers[min(feedback, len(answers) - 1)], lang)}


# -- the eight endpoint scenarios of issue #38 (tests/llm/test_exit_codes.py) ---------------

AXPY_NO_COMPILE = AXPY.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i] + y[i]")
AXPY_ZEROS = AXPY.replace("y[i] = a * x[i] + y[i];", "y[i] = 0.0f;")

#: scenario -> (the fake's script, its responder, what `gen`/`batch` must exit with).
SCENARIOS = {
    "correct": ([], lambda r: {"text": fenced(AXPY)}, 0),
    "no-compile": ([], lambda r: {"text": fenced(AXPY_NO_COMPILE)}, 1),
    "zeros": ([], lambda r: {"text": fenced(AXPY_ZEROS)}, 1),
    "429-then-200": ([{"status": 429, "headers": {"Retry-After": "0"}}], lambda r: {"text": fenced(AXPY)}, 0),
    "500-always": ([], lambda r: {"status": 500}, 6),
    "slower-than-timeout": ([], lambda r: {"text": fenced(AXPY), "delay": 4}, 6),
    "not-json": ([], lambda r: {"garbage": True}, 6),
    "no-choices": ([], lambda r: {"no_choices": True}, 6),
}


# -- the feedback loop, measured (tests/llm/test_loop.py, docs/llm.md) ----------------------

AXPY_RACY = AXPY.replace("#include <cuda_runtime.h>\n", "#include <cuda_runtime.h>\n/* racy */\n")
AXPY_FAST = AXPY.replace("(n + 127) / 128, 128", "(n + 255) / 256, 256")
AXPY_SLOW = AXPY.replace("(n + 127) / 128, 128", "(n + 31) / 32, 32")
#: the repairs, by the number of times t2c has sent feedback; then, asked for a faster version
#: of a correct one, the next in FASTER.
LOOP = [AXPY_ZEROS, AXPY_RACY, AXPY]
FASTER = {AXPY: AXPY_FAST, AXPY_FAST: AXPY_SLOW, AXPY_SLOW: AXPY_SLOW}


def loop_responder(request: dict) -> dict:
    messages = request.get("messages") or []
    last = messages[-1]["content"] if messages else ""
    if last.startswith("This version is correct."):
        shown = extract_block(messages[-2]["content"])
        return {"text": fenced(FASTER.get(shown, AXPY_SLOW))}
    feedback = sum(m["role"] == "user" for m in messages) - 1
    return {"text": fenced(LOOP[min(feedback, len(LOOP) - 1)])}


def extract_block(text: str) -> str:
    m = re.search(r"```cuda\n(.*?)```", text, re.S)
    return (m.group(1).strip() + "\n") if m else ""


def main(argv=None) -> None:
    """Serve the scripted model until Ctrl-C (for docs/llm.md's walkthrough)."""
    import argparse
    import sys
    import time
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from fakellm import FakeLLM
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--loop", action="store_true", help="the walkthrough's axpy conversation")
    args = ap.parse_args(argv)
    with FakeLLM(responder=loop_responder if args.loop else responder, port=args.port) as server:
        print(f"scripted model at {server.base_url} (Ctrl-C stops it)", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
