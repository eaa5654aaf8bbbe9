"""The candidate harness: a driver program around a candidate `.cu`, built for gpu or emu.

    candidate_driver(kernel) -> str;  build_candidate(kernel, source, backend) -> CandidateBuild
    run_candidate, run_calls: a build run on inputs, outputs read back

Takes a candidate exporting `NAME` (host pointers) and `NAME_device` (device pointers) with C
linkage (DESIGN §3; ir/abi.py prints the ABI); gives a driver (built as ir/cgen nodes) in its own
translation unit speaking the reference driver's file protocol, in modes `host`, `device`, `calls` (several calls in one process) and `bench`
(timed repetitions, lines marked with a nonce the candidate cannot read). Runs happen in a
scratch directory holding only the inputs, with a scrubbed environment, a wall-clock limit, a
process-group kill and prlimit bounds; CUDA errors exit 5, guard-zone writes exit 6.
docs/verification.md, "Drivers and their files", "Isolation".
"""
from __future__ import annotations

import hashlib
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import config
from ..ir import Kernel, abi, cgen
from ..runtime.build import BUSY_COMPILER, BuildError, BuildTimedOut, intact, seal
from ..runtime.process import COMPILE_TIMEOUT, ProcessResult, clean_env, run_process
from .reference import check_constraints, read_arrays, write_array

DRIVER_PRELUDE = r"""
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define T2C_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "t2c: cuda error: %s at driver line %d\n", cudaGetErrorString(e_), __LINE__); \
  exit(5); } } while (0)

/* Guard zones around device arrays on a real GPU: a write past either end changes
   them and is reported (exit 6).  On emu, AddressSanitizer sees the real bounds,
   so there are none. */
#ifdef T2C_EMU
#define T2C_GUARD ((size_t)0)
#else
#define T2C_GUARD ((size_t)65536)
#endif
#define T2C_GUARD_BYTE 0xA5

static void *t2c_host(size_t bytes)
{
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p) { fprintf(stderr, "t2c: out of host memory\n"); exit(4); }
  return p;
}

/* Reads DIR/NAME.bin into p: exactly `bytes` bytes, or zeros when the file is
   missing and not required. */
static void t2c_load_into(const char *dir, const char *name, void *p, size_t bytes, int required)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (required) { fprintf(stderr, "t2c: missing input %s\n", path); exit(3); }
    memset(p, 0, bytes);
    return;
  }
  if (fread(p, 1, bytes, f) != bytes || fgetc(f) != EOF) {
    fprintf(stderr, "t2c: %s does not hold exactly %zu bytes\n", path, bytes);
    exit(3);
  }
  fclose(f);
}

static void t2c_store(const char *dir, const char *name, const void *p, size_t bytes)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/out_%s.bin", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "t2c: cannot write %s\n", path); exit(3); }
  fclose(f);
}

static void *t2c_device(size_t bytes)
{
  char *base = NULL;
  T2C_CHECK(cudaMalloc((void **)&base, (bytes ? bytes : 1) + 2 * T2C_GUARD));
  if (T2C_GUARD) {
    T2C_CHECK(cudaMemset(base, T2C_GUARD_BYTE, T2C_GUARD));
    T2C_CHECK(cudaMemset(base + T2C_GUARD + bytes, T2C_GUARD_BYTE, T2C_GUARD));
  }
  return base + T2C_GUARD;
}

static void t2c_device_free(void *d)
{
  T2C_CHECK(cudaFree((char *)d - T2C_GUARD));
}

/* Calls mode: DIR/c/call.txt says the entry point and the sizes of call c. */
static int t2c_read_call(const char *dir, int *sizes, int n)
{
  char path[4096], entry[16];
  snprintf(path, sizeof path, "%s/call.txt", dir);
  FILE *f = fopen(path, "r");
  if (!f || fscanf(f, "%15s", entry) != 1) { fprintf(stderr, "t2c: cannot read %s\n", path); exit(3); }
  for (int i = 0; i < n; i++)
    if (fscanf(f, "%d", &sizes[i]) != 1) { fprintf(stderr, "t2c: %s lacks size %d\n", path, i + 1); exit(3); }
  fclose(f);
  return strcmp(entry, "device") == 0;
}

static void t2c_check_guards(const char *name, void *d, size_t bytes)
{
  static unsigned char *buf = NULL;
  if (!T2C_GUARD) return;
  if (!buf) buf = (unsigned char *)t2c_host(T2C_GUARD);
  for (int side = 0; side < 2; side++) {
    char *at = side ? (char *)d + bytes : (char *)d - T2C_GUARD;
    T2C_CHECK(cudaMemcpy(buf, at, T2C_GUARD, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < T2C_GUARD; i++)
      if (buf[i] != T2C_GUARD_BYTE) {
        fprintf(stderr, "t2c: out-of-bounds write %s array %s (byte %zu %s it)\n",
                side ? "after" : "before", name, side ? i : T2C_GUARD - i, side ? "past" : "before");
        exit(6);
      }
  }
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


#: Timed repetitions before the bench may stop a clearly slow candidate (T2C_BENCH_STOP_MS).
EARLY_REPS = 3


def candidate_driver(k: Kernel) -> str:
    """CUDA C++ text of the candidate driver (modes in the module docstring)."""
    ret, arrays, nsz = k.returns, k.arrays, len(k.sizes)
    ins = [s for s in k.scalars if s.intent == "in"]
    check = lambda what: cgen.call("T2C_CHECK", what)
    keep = lambda entry: cgen.assign("t2c_ret", entry) if ret else cgen.expr(entry)   # the call, its result kept
    dev_call = keep(abi.call(k, "_device", lambda a: f"d_{a.name}"))
    synced = "T2C_CHECK(cudaDeviceSynchronize()); T2C_CHECK(cudaGetLastError());"

    def allocate(declare: bool) -> list:
        """Each array's bytes at the current sizes, its host buffer and its device copy (only
        for a device mode when declared; always when calls mode reallocates)."""
        out = []
        for a in arrays:
            host = cgen.cast(f"{a.dtype} *", cgen.call("t2c_host", f"{a.name}_bytes"))
            device = cgen.cast(f"{a.dtype} *", cgen.call("t2c_device", f"{a.name}_bytes"))
            if declare:
                out += [cgen.decl(f"size_t {a.name}_bytes", abi.array_bytes(a)),
                        cgen.decl(f"{a.dtype} *{a.name}", host),
                        cgen.decl(f"{a.dtype} *d_{a.name}", cgen.ternary("t2c_on_device", device, "NULL"))]
            else:
                out += [cgen.assign(f"{a.name}_bytes", abi.array_bytes(a)), cgen.assign(a.name, host),
                        cgen.assign(f"d_{a.name}", device)]
        return out

    def load(where: str) -> list:
        return [*(cgen.call("t2c_load_into", where, cgen.string(s.name), f"&{s.name}", f"sizeof({s.dtype})", 1)
                  for s in ins),
                *(cgen.call("t2c_load_into", where, cgen.string(a.name), a.name, f"{a.name}_bytes",
                            int(a.intent != "out")) for a in arrays)]

    def copies(source: str, target: str, way: str, only=lambda a: True) -> list:
        """cudaMemcpy of each array (that `only` takes) from `source` to `target`: prefixes of its name."""
        return [check(cgen.call("cudaMemcpy", target + a.name, source + a.name, f"{a.name}_bytes", way))
                for a in arrays if only(a)]

    def from_device() -> list:
        # cudaMemcpy on the legacy stream waits for blocking streams only: work left on a
        # non-blocking side stream shows up here as wrong outputs.
        return [*copies("d_", "", "cudaMemcpyDeviceToHost", lambda a: a.intent != "in"),
                *(cgen.call("t2c_check_guards", cgen.string(a.name), f"d_{a.name}", f"{a.name}_bytes")
                  for a in arrays),
                synced]

    def store(where: str) -> list:
        returned = ret and cgen.call("t2c_store", where, cgen.string("return"), "&t2c_ret", f"sizeof({ret.dtype})")
        return [returned or None,
                *(cgen.call("t2c_store", where, cgen.string(a.name), a.name, f"{a.name}_bytes")
                  for a in arrays if a.intent != "in")]

    usage = cgen.string("usage: %s host|device DIR SIZES | calls|bench DIR N SIZES\n")
    setup = [
        r"""const char *t2c_mode = argc > 1 ? argv[1] : "";
            int t2c_calls = strcmp(t2c_mode, "calls") == 0;
            int t2c_bench = strcmp(t2c_mode, "bench") == 0;
            int t2c_counted = t2c_calls || t2c_bench;""",
        cgen.if_(f"argc != {3 + nsz} + t2c_counted", [cgen.call("fprintf", "stderr", usage, "argv[0]"), "return 2;"]),
        r"""const char *t2c_dir = argv[2];
            const char *t2c_tag = getenv("T2C_NONCE") ? getenv("T2C_NONCE") : "t2c";
            int t2c_count = t2c_counted ? atoi(argv[3]) : 1;
            int t2c_first = 3 + t2c_counted;
            int t2c_on_device = t2c_bench || t2c_calls || strcmp(t2c_mode, "device") == 0;
            if (!t2c_bench && !t2c_on_device && strcmp(t2c_mode, "host")) {
              fprintf(stderr, "t2c: unknown mode %s\n", t2c_mode);
              return 2;
            }""",
        *(cgen.decl(f"int {s.name}", f"atoi(argv[t2c_first + {i}])") for i, s in enumerate(k.sizes)),
        *(cgen.decl(f"{s.dtype} {s.name}", 0) for s in ins),
        *allocate(True),
        cgen.decl(f"{ret.dtype} t2c_ret", 0) if ret else None]
    # correctness modes: one call per case directory, the same buffers every call, so a
    # candidate that caches results by pointer replays stale outputs on the second case
    resize = [cgen.if_(" || ".join(f"t2c_new[{i}] != {s.name}" for i, s in enumerate(k.sizes)), [
        *(cgen.assign(s.name, f"t2c_new[{i}]") for i, s in enumerate(k.sizes)),
        *([cgen.call("free", a.name), cgen.call("t2c_device_free", f"d_{a.name}")] for a in arrays),
        *allocate(False)])] if nsz else []
    checks = cgen.if_("!t2c_bench", [
        cgen.for_("int t2c_c = 0", "t2c_c < t2c_count", "t2c_c++",
               r"""char t2c_sub[4096];
                   if (t2c_calls) snprintf(t2c_sub, sizeof t2c_sub, "%s/%d", t2c_dir, t2c_c);
                   else snprintf(t2c_sub, sizeof t2c_sub, "%s", t2c_dir);""",
               # calls mode: this call's entry point and sizes; new buffers only when the sizes change
               cgen.if_("t2c_calls", [cgen.decl(f"int t2c_new[{nsz + 1}]"),
                                   cgen.assign("t2c_on_device", f"t2c_read_call(t2c_sub, t2c_new, {nsz})"),
                                   *resize]),
               *load("t2c_sub"),
               cgen.if_("t2c_on_device", [*copies("", "d_", "cudaMemcpyHostToDevice"), dev_call, *from_device()],
                     [keep(abi.dropin_call(k, lambda a: abi.host_pointer(a, a.name))), synced]),
               *store("t2c_sub")),
        "return 0;"])
    # bench: REPS timed calls after two warm-ups, fresh inputs and a cold L2 before each.  The
    # inputs come back from pristine device copies (T2C_BENCH_RESTORE=host: from host memory, as
    # before report 13; also when the copies do not fit): on the H200 a call right after copies
    # from pageable host memory took up to 1.4x as long (gesummv 0.0266 against 0.0190 ms, trmm
    # 0.0779 / 0.0674; calls over a millisecond alike) at the same SM clock (scripts/
    # clock_probe.cu), and cuBLAS's yardstick (scripts/cublas_rates.py) copies nothing before
    # its calls (reports/h200-polybench-large-13/)
    pristine = [[cgen.Comment(f"{a.name} as loaded, on the device"), cgen.decl(f"void *p_{a.name}", "NULL"),
                 cgen.if_(f"!t2c_from_host && cudaMalloc(&p_{a.name}, {a.name}_bytes ? {a.name}_bytes : 1)"
                          " != cudaSuccess",
                       ["cudaGetLastError(); t2c_from_host = 1;"])] for a in arrays]
    # The timer starts with the flush still queued, so the host's launch of the first kernel
    # overlaps it, as in torch.cuda.Event timing and triton's do_bench: the GPU's time for the
    # call.  T2C_BENCH_START=idle starts it after the flush, on an idle GPU, which adds the host's
    # launch latency to every call (docs/bench.md).
    timed = cgen.for_(
        "int t2c_r = 0", "t2c_r < 2 + t2c_count", "t2c_r++",
        cgen.if_("t2c_from_host", copies("", "d_", "cudaMemcpyHostToDevice"),
              copies("p_", "d_", "cudaMemcpyDeviceToDevice")),
        r"""t2c_flush_l2();
            if (t2c_idle) T2C_CHECK(cudaDeviceSynchronize());
            T2C_CHECK(cudaEventRecord(t2c_e0));""",
        dev_call,
        r"""T2C_CHECK(cudaEventRecord(t2c_e1));
            T2C_CHECK(cudaEventSynchronize(t2c_e1));
            T2C_CHECK(cudaGetLastError());
            float t2c_ms = 0;
            T2C_CHECK(cudaEventElapsedTime(&t2c_ms, t2c_e0, t2c_e1));
            if (t2c_r >= 2) printf("%s kernel_ms %.6f\n", t2c_tag, t2c_ms);
            if (t2c_r >= 2 && t2c_ms < t2c_fastest) t2c_fastest = t2c_ms;""",
        cgen.Comment("clearly slow"),
        cgen.if_(f"t2c_stop > 0 && t2c_r >= 1 + {EARLY_REPS} && t2c_fastest > t2c_stop", "break;"))
    bench = [
        *load("t2c_dir"),
        r"""const char *t2c_start = getenv("T2C_BENCH_START");
            int t2c_idle = t2c_start && !strcmp(t2c_start, "idle");
            const char *t2c_restore = getenv("T2C_BENCH_RESTORE");
            int t2c_from_host = t2c_restore && !strcmp(t2c_restore, "host");""",
        pristine,
        *(cgen.if_("!t2c_from_host", c) for c in copies("", "p_", "cudaMemcpyHostToDevice")),
        r"""cudaEvent_t t2c_e0;
            cudaEvent_t t2c_e1;
            T2C_CHECK(cudaEventCreate(&t2c_e0));
            T2C_CHECK(cudaEventCreate(&t2c_e1));
            const char *t2c_stop_at = getenv("T2C_BENCH_STOP_MS");
            double t2c_stop = t2c_stop_at ? atof(t2c_stop_at) : 0;
            double t2c_fastest = 1e300;""",
        timed, *from_device(), *store("t2c_dir"),
        # one end-to-end call of the drop-in on fresh host copies of the inputs
        *([cgen.decl(f"{a.dtype} *e_{a.name}", cgen.cast(f"{a.dtype} *", cgen.call("t2c_host", f"{a.name}_bytes"))),
           cgen.call("t2c_load_into", "t2c_dir", cgen.string(a.name), f"e_{a.name}", f"{a.name}_bytes",
                     int(a.intent != "out"))]
          for a in arrays),
        *(cgen.decl(f"{a.dtype} **t_{a.name}", abi.host_pointer(a, f"e_{a.name}")) for a in arrays if a.rows),
        r"""T2C_CHECK(cudaDeviceSynchronize());
            T2C_CHECK(cudaEventRecord(t2c_e0));""",     # (a row table is the caller's: built untimed)
        cgen.expr(abi.dropin_call(k, lambda a: f"t_{a.name}" if a.rows else f"e_{a.name}")),
        r"""T2C_CHECK(cudaEventRecord(t2c_e1));
            T2C_CHECK(cudaEventSynchronize(t2c_e1));
            float t2c_e2e = 0;
            T2C_CHECK(cudaEventElapsedTime(&t2c_e2e, t2c_e0, t2c_e1));
            printf("%s e2e_ms %.6f\n", t2c_tag, t2c_e2e);
            return 0;"""]
    main = cgen.function("int main(int argc, char **argv)", setup, checks, bench)
    return cgen.render(cgen.program(DRIVER_PRELUDE, *abi.headers(k), abi.rows_helper(k),
                                    abi.declaration(k), abi.declaration(k, "_device"),
                                    abi.file_scope_shim(k), "",
                              main))


# -- building ------------------------------------------------------------------------------

#: A candidate's nvcc build may take twice `COMPILE_TIMEOUT`: nvcc runs several compilers in turn
#: (front end, cicc, ptxas per architecture), and a candidate's fully unrolled loops lengthen each.
NVCC_TIMEOUT = 2 * COMPILE_TIMEOUT


@dataclass(frozen=True)
class CandidateBuild:
    exe: Path
    log: str                  # compiler output (ptxas register/spill/shared figures for gpu)
    command: tuple[str, ...]


def gpu_arch() -> str:
    """`native` when a GPU answers, else the target poly lowers for (build-only machines)."""
    from ..runtime.gpu import gpu_present
    from ..runtime.target import SM90
    return "native" if gpu_present() else f"sm_{SM90.arch}"


def build_candidate(k: Kernel, cu_source: str, backend: str, *, sanitize: bool = False,
                    cache_dir: Path | None = None) -> CandidateBuild:
    """Compile driver + candidate; raises BuildError with the compiler's log."""
    cfg = config.load()
    driver = candidate_driver(k)
    cache = Path(cache_dir or cfg.build_cache or cfg.cache_dir) / "cand"
    if backend == "gpu":
        if not cfg.nvcc:
            raise BuildError("nvcc not found", "install the CUDA toolkit or run `make setup`", [])
        flags = ["-O3", f"-arch={gpu_arch()}", "-Xptxas", "-v", "-lineinfo"]
        tag = repr(("gpu", cfg.nvcc, flags))
    else:
        tag = repr(("emu", sanitize))
    key = hashlib.sha256((driver + "\0" + cu_source + "\0" + tag).encode()).hexdigest()[:24]
    out = cache / key
    exe = out / "prog"
    if intact(exe):
        command = (out / "command.txt").read_text().split("\n") if (out / "command.txt").exists() else []
        return CandidateBuild(exe, (out / "build.log").read_text(), tuple(command))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        tmp = Path(tmp)
        (tmp / "driver.cu").write_text(driver)
        (tmp / "candidate.cu").write_text(cu_source)
        if backend == "gpu":
            cmd = [cfg.nvcc, *flags, str(tmp / "driver.cu"), str(tmp / "candidate.cu"), "-o", str(tmp / "prog")]
            proc = run_process(cmd, timeout=NVCC_TIMEOUT, env=clean_env())
            log = proc.stdout + proc.stderr
            if proc.timed_out:
                raise BuildTimedOut(f"nvcc did not finish within {NVCC_TIMEOUT:.0f} s (stopped)", log, cmd,
                                    hint=BUSY_COMPILER)
            if proc.returncode != 0:
                raise BuildError("nvcc failed", log, cmd)
        else:
            from ..runtime.emu import build_emu
            res = build_emu([tmp / "driver.cu", tmp / "candidate.cu"], tmp / "prog", sanitize=sanitize)
            log, cmd = res.log, [res.command]
            if not res.ok:
                if res.unsupported is not None:
                    raise BuildError(f"the emulator does not model: {res.unsupported}", log, cmd)
                raise BuildError("emulation build failed", log, cmd)
        (out / "build.log").write_text(log)
        (out / "command.txt").write_text("\n".join(map(str, cmd)))
        seal(tmp / "prog", exe)
        (tmp / "prog").replace(exe)
    return CandidateBuild(exe, log, tuple(cmd))


# -- running -------------------------------------------------------------------------------

@dataclass(frozen=True)
class CandidateRun:
    process: ProcessResult
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    kernel_ms: tuple[float, ...] = ()
    e2e_ms: float | None = None
    stray_output: str = ""        # stdout lines that are not the driver's own


@dataclass(frozen=True)
class CallsRun:
    process: ProcessResult
    outputs: tuple[dict, ...] = ()   # one dict per call that finished, in order (all of them when
                                     # the process succeeded; when it failed, the calls before the
                                     # one that failed)


@dataclass(frozen=True)
class Limits:
    """Resource bounds of one candidate process (None: unbounded)."""
    address_space: int | None = None     # bytes (RLIMIT_AS); not for CUDA or sanitizers
    data: int | None = None              # bytes (RLIMIT_DATA: heap and private mappings);
                                         # CUDA programs run under it (checked on an H200)
    file_size: int | None = None         # bytes (RLIMIT_FSIZE): outputs, stdout, stderr
    cpu_seconds: int | None = None       # RLIMIT_CPU, a backstop to the wall-clock limit


def _limited(argv: list, limits: Limits | None) -> list:
    prlimit = shutil.which("prlimit")
    if limits is None or prlimit is None:
        return argv
    opts = []
    if limits.address_space:
        opts.append(f"--as={limits.address_space}")
    if limits.data:
        opts.append(f"--data={limits.data}")
    if limits.file_size:
        opts.append(f"--fsize={limits.file_size}")
    if limits.cpu_seconds:
        opts.append(f"--cpu={limits.cpu_seconds}")
    return [prlimit, "--core=0", *opts, "--", *argv] if opts else argv


#: Runs that only check results open their CUDA context with one hardware queue: on an H200 a
#: process start (cuInit, context, exit) took 243 ms instead of 354, and 465 instead of 645 while
#: the other GPU's slot started processes too (scripts/start_probe.sh; the driver serializes
#: context creation across GPUs).  Timed runs keep the default environment, what a user's program
#: sees: a bench with one queue timed the launch-bound trmm at 93 ms where the previous report had
#: 209 ms (another host, not side by side; reports/multi-gpu/), so the queue count may move timings.
CHECK_ENV = {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}


def scrubbed_env(extra: dict | None = None, *, timed: bool = False) -> dict:
    """What a candidate sees of the environment: no keys, a scratch HOME, only what it needs
    (process.clean_env, and `CHECK_ENV` unless the run is `timed`)."""
    return clean_env({**({} if timed else CHECK_ENV), **(extra or {})})


def _timing(stdout: str, nonce: str) -> tuple[tuple[float, ...], float | None, str]:
    kms, e2e, stray = [], None, []
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == nonce and parts[1] == "kernel_ms":
            kms.append(float(parts[2]))
        elif len(parts) == 3 and parts[0] == nonce and parts[1] == "e2e_ms":
            e2e = float(parts[2])
        elif line.strip():
            stray.append(line)
    return tuple(kms), e2e, "\n".join(stray)[:2000]


def run_candidate(k: Kernel, build: CandidateBuild, sizes: dict[str, int], inputs: dict, *,
                  mode: str = "device", reps: int = 1, poison: dict | None = None,
                  timeout: float = 60.0, env: dict | None = None,
                  limits: Limits | None = None) -> CandidateRun:
    """Run a built candidate in a scratch folder holding only its inputs.

    `poison` gives starting contents for `out` arrays (e.g. NaN), so that an element
    the candidate never writes cannot pass."""
    check_constraints(k, sizes)
    size_args = [str(sizes[s.name]) for s in k.sizes]
    nonce = "t2c-" + secrets.token_hex(8)
    with tempfile.TemporaryDirectory(prefix="t2c-cand-") as tmp:
        d = Path(tmp)
        for name, value in {**inputs, **(poison or {})}.items():
            write_array(d / f"{name}.bin", value)
        argv = [build.exe, mode, d, *([str(reps)] if mode == "bench" else []), *size_args]
        proc = run_process(_limited(argv, limits), cwd=d, timeout=timeout,
                           env=scrubbed_env({**(env or {}), "T2C_NONCE": nonce}, timed=mode == "bench"))
        if not proc.ok:
            return CandidateRun(proc)
        try:
            outputs = read_arrays(k, sizes, d, "out_", inputs_only=False)
        except (OSError, ValueError):
            return CandidateRun(proc, {}, ())
        kms, e2e, stray = _timing(proc.stdout, nonce)
        return CandidateRun(proc, outputs, kms, e2e, stray)


def run_calls(k: Kernel, build: CandidateBuild, calls: list[tuple[bool, dict, dict]], *,
              poison=None, timeout: float = 60.0, env: dict | None = None,
              limits: Limits | None = None) -> CallsRun:
    """Several calls in one process, each (on_device, sizes, inputs): one CUDA context for
    all of them (a context costs ~0.35 s on an H200, and processes starting at once on two
    GPUs wait for each other).  `poison(sizes)` gives the `out` arrays' starting contents."""
    for _, sizes, _ in calls:
        check_constraints(k, sizes)
    with tempfile.TemporaryDirectory(prefix="t2c-cand-") as tmp:
        d = Path(tmp)
        for c, (on_device, sizes, inputs) in enumerate(calls):
            (d / str(c)).mkdir()
            (d / str(c) / "call.txt").write_text(" ".join(["device" if on_device else "host",
                                                           *(str(sizes[s.name]) for s in k.sizes)]) + "\n")
            for name, value in {**inputs, **(poison(sizes) if poison else {})}.items():
                write_array(d / str(c) / f"{name}.bin", value)
        argv = [build.exe, "calls", d, str(len(calls)), *(str(calls[0][1][s.name]) for s in k.sizes)]
        proc = run_process(_limited(argv, limits), cwd=d, timeout=timeout,
                           env=scrubbed_env({**(env or {}), "T2C_NONCE": "t2c-" + secrets.token_hex(8)}))
        outs = []
        for c, (_, sizes, _) in enumerate(calls):
            try:
                outs.append(read_arrays(k, sizes, d / str(c), "out_", inputs_only=False))
            except (OSError, ValueError):
                if not proc.ok:
                    break                # the call the process failed in, and none after it
                outs.append({})
        return CallsRun(proc, tuple(outs))
