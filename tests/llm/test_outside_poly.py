"""C kernels that poly runs in one thread, outside its model, go to the model (issue #35, 3).

A call that passes arrays to the file's own helper and a data-dependent `while` loop leave the
polyhedral model; the frontend still builds the host reference from the original C, so `t2c gen
--generator llm|hybrid` gets a parallel candidate from the (fake) model, checked by the ladder
against that reference, and `t2c verify` accepts it on emu. The fake answers as a model would:
a kernel per element that calls the helper, and, for the while loop, the index where it stops
found as a parallel minimum before the elements before it are halved in parallel.
"""

import pytest

from fakellm import FakeLLM
from scripted import fenced
from t2ctest import ROOT, t2c_cli

SMOOTH = (ROOT / "tests/frontend/kernels/smooth_helper.c").read_text()   # a helper reading through a pointer

HALVE = """\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: array x[n] inout
 * t2c: domain x uniform(0.45, 1.0)
 */
void halve(int n, double *x)
{
  int i = 0;
  while (i < n && x[i] > 0.5) {
    x[i] = x[i] / 2;
    i++;
  }
}
"""

SMOOTH_CU = """#include <cuda_runtime.h>
static __device__ double around(const double *v, int i, int n)
{
  double s = v[i];
  if (i > 0) s += v[i - 1];
  if (i + 1 < n) s += v[i + 1];
  return s;
}
__global__ void smooth_k(int n, const double *x, double *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = around(x, i, n) / 3.0;
}
extern "C" void smooth_device(int n, double *x, double *y)
{
  if (n > 0) smooth_k<<<(n + 127) / 128, 128>>>(n, x, y);
}
extern "C" void smooth(int n, const double *x, double *y)
{
  size_t b = (size_t)n * sizeof(double);
  double *dx, *dy;
  cudaMalloc((void **)&dx, b ? b : 1);
  cudaMalloc((void **)&dy, b ? b : 1);
  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
  smooth_device(n, dx, dy);
  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
"""

HALVE_CU = """#include <cuda_runtime.h>
__device__ int halve_stop;
__global__ void halve_reset(int n) { halve_stop = n; }
__global__ void halve_first(int n, const double *x)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !(x[i] > 0.5)) atomicMin(&halve_stop, i);
}
__global__ void halve_apply(int n, double *x)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < halve_stop) x[i] = x[i] / 2;
}
extern "C" void halve_device(int n, double *x)
{
  if (n <= 0) return;
  unsigned blocks = (unsigned)((n + 127) / 128);
  halve_reset<<<1, 1>>>(n);
  halve_first<<<blocks, 128>>>(n, x);
  halve_apply<<<blocks, 128>>>(n, x);
}
extern "C" void halve(int n, double *x)
{
  size_t b = (size_t)n * sizeof(double);
  double *dx;
  cudaMalloc((void **)&dx, b ? b : 1);
  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
  halve_device(n, dx);
  cudaMemcpy(x, dx, b, cudaMemcpyDeviceToHost);
  cudaFree(dx);
}
"""

ANSWERS = {"smooth": SMOOTH_CU, "halve": HALVE_CU}
FLAGS = ("--llm-cache", "off", "--llm-retries", "0", "--llm-population", "1", "--llm-rounds", "1")


def model(request: dict) -> dict:
    """The kernel the first user message asks for, written in parallel."""
    first = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return {"text": fenced(next(cu for name, cu in ANSWERS.items() if f"kernel `{name}`" in first))}


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("t2c-cache")


t2c = t2c_cli


@pytest.mark.parametrize("name, source, construct", [
    ("smooth", SMOOTH, "line 17: calls its own function 'around'"),
    ("halve", HALVE, "line 8: while loops have no affine iteration domain"),
], ids=["helper_with_arrays", "while_loop"])
def test_poly_names_the_construct_and_the_model_parallelizes_it(tmp_path, cache_dir, name, source, construct):
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    r = t2c(["gen", src, "-o", tmp_path / "poly.cu"], tmp_path, cache_dir)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"{src}: {name} runs in one GPU thread" in r.stderr and construct in r.stderr, r.stderr
    assert "`t2c gen --generator llm` or `--generator hybrid`" in r.stderr

    out = tmp_path / f"{name}.cu"
    with FakeLLM(responder=model) as fake:
        r = t2c(["gen", src, "--generator", "llm", "--backend", "emu", "--llm-base-url", fake.base_url,
                 "--llm-model", "fake-coder", *FLAGS, "-o", out], tmp_path, cache_dir)
    assert r.returncode == 0, r.stderr[-3000:]
    assert out.read_text() == ANSWERS[name]                   # the model's parallel kernel, accepted
    prompt = fake.requests[0]["body"]["messages"][-1]["content"]
    assert "while ((i < n) && (x[i] > 0.5))" in prompt if name == "halve" else \
        "static double around(const double *v, int i, int n)" in prompt   # the helper travels with the IS
    r = t2c(["verify", src, "--candidate", out, "--backend", "emu", "--dataset", "MINI"], tmp_path, cache_dir)
    assert r.returncode == 0 and "verdict: ACCEPTED" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]


def test_hybrid_takes_a_kernel_whose_helper_takes_arrays(tmp_path, cache_dir):
    """hybrid starts from poly's one-thread candidate and asks the model too; what it writes
    passed the ladder, and `t2c verify` accepts it."""
    src = tmp_path / "smooth.c"
    src.write_text(SMOOTH)
    out = tmp_path / "smooth.cu"
    with FakeLLM(responder=model) as fake:
        r = t2c(["gen", src, "--generator", "hybrid", "--backend", "emu", "--llm-base-url", fake.base_url,
                 "--llm-model", "fake-coder", *FLAGS, "-o", out], tmp_path, cache_dir)
    assert r.returncode == 0, r.stderr[-3000:]
    r = t2c(["verify", src, "--candidate", out, "--backend", "emu", "--dataset", "MINI"], tmp_path, cache_dir)
    assert r.returncode == 0 and "verdict: ACCEPTED" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
