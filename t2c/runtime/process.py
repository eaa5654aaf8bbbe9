"""Run one untrusted program: its own process group, a wall-clock limit, bounded output.

Takes an argv, a working directory and an environment; gives a `ProcessResult`.
A program that hangs is killed with its whole process group, so a crashing or
hanging candidate costs one candidate and never the caller.  Output beyond
`max_output` bytes is cut (and flagged) rather than held in memory.

Every program t2c starts goes through `run_process`, compilers and tool queries included: each has
a time limit (`COMPILE_TIMEOUT`, `QUERY_TIMEOUT`, or its caller's) and dies with t2c, since an
exception that unwinds the wait (Ctrl-C, or SIGTERM, which the CLI turns into one) kills its group.

`clean_env(extra)` is the environment for anything that builds or runs code t2c did not
write (a model's or a user's candidate, a model-written reference): the `KEPT` variables
and HOME set to an empty scratch folder of this process, never the caller's secrets (an
API key, a token); the verifier adds its own variables (harness.scrubbed_env).
"""
from __future__ import annotations

import errno
import os
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MAX_OUTPUT = 16 * 1024 * 1024

#: The longest one compile may run (gcc, g++, cpp or nvcc on one program).  Not a setting: the
#: programs t2c compiles build in seconds; the limit is there for one that never would (code that a
#: model or a user wrote can keep a compiler busy without end: a macro or initializer that expands
#: exponentially, a huge unrolled body), so that it costs one kernel and not a hung batch.
COMPILE_TIMEOUT = 300.0

#: The longest a tool asked about itself (`--version`, nvidia-smi's device list) may take: it answers
#: at once, or within seconds where a GPU driver has to load first.
QUERY_TIMEOUT = 30.0

#: What compilers (gcc, g++, nvcc, clang) and candidates need of the caller's environment:
#: where the tools and libraries are, the locale, the temporary folder, which GPUs to use.
KEPT = ("PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
        "LANG", "LC_ALL", "TMPDIR", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES")
_HOME: list = []


def clean_env(extra: dict | None = None) -> dict:
    """The `KEPT` variables of this process, HOME an empty scratch folder, then `extra`."""
    if not _HOME:
        import atexit
        _HOME.append(tempfile.mkdtemp(prefix="t2c-home-"))
        atexit.register(shutil.rmtree, _HOME[0], True)
    env = {k: os.environ[k] for k in KEPT if k in os.environ}
    env["HOME"] = _HOME[0]
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class ProcessResult:
    argv: tuple[str, ...]
    returncode: int | None      # None when killed for the time limit
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    output_cut: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None

    def describe(self) -> str:
        """One line for a log or an error: how the program ended."""
        if self.timed_out:
            return f"timed out after {self.seconds:.1f} s"
        if self.signal:
            return f"killed by signal {signal.Signals(self.signal).name}"
        return f"exit code {self.returncode}"


#: a shell and coreutils' nice, which lower a command's priority before it starts
SH, NICE = shutil.which("sh"), shutil.which("nice")


def _lower(pid: int, nice: int) -> None:
    """Lower a process's CPU priority: its nice value and, since it leads a session of its own
    (under the kernel's autogroup scheduling nice values count only within a session), its
    session group's.  A batch synthesizing test suites on every core then still leaves the
    processes that hold a GPU slot the CPU they need.  Best effort: a process that already
    ended, or a system without autogroup, keeps its priority; one already nicer stays so."""
    try:
        if os.getpriority(os.PRIO_PROCESS, pid) < nice:
            os.setpriority(os.PRIO_PROCESS, pid, nice)
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass


def _read_capped(f, limit: int) -> tuple[str, bool]:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(0)
    data = f.read(limit)
    return data.decode("utf-8", "replace"), size > limit


def run_process(argv, *, cwd: str | Path | None = None, env: dict | None = None,
                timeout: float = 60.0, stdin: bytes | None = None,
                max_output: int = MAX_OUTPUT, nice: int = 0) -> ProcessResult:
    """Run argv to completion or to `timeout` seconds, whichever comes first.

    Output goes to temporary files (not pipes), so a program that prints without
    end cannot fill a pipe and block; only the first `max_output` bytes are read.
    `nice` > 0: background work, which yields the CPU to others (see `_lower`).
    """
    argv = tuple(str(a) for a in argv)
    # lowered before it starts (its own shell sets the autogroup, then becomes it through `nice`),
    # so that what it starts at once inherits the priority too; _lower without sh or nice
    launch = argv
    if nice > 0 and SH and NICE:
        launch = (SH, "-c", f"echo {int(nice)} > /proc/self/autogroup 2>/dev/null; exec {shlex.quote(NICE)} -n {int(nice)} \"$@\"",
                  "t2c-background", *argv)
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        for attempt in range(6):      # a program just written: a child another thread forked
            try:                      # may hold it open for writing until it execs (ETXTBSY)
                proc = subprocess.Popen(launch, cwd=cwd, env=env, stdout=out, stderr=err,
                                        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                        start_new_session=True)
                break
            except OSError as e:
                if e.errno != errno.ETXTBSY or attempt == 5:
                    raise
                time.sleep(0.02 * 2 ** attempt)
        timed_out = False
        if nice > 0 and launch is argv:
            _lower(proc.pid, nice)
        try:
            if stdin is not None:
                proc.stdin.write(stdin)
                proc.stdin.close()
            wait_for(proc, timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        except BaseException:
            _kill_group(proc)
            raise
        finally:
            _kill_group(proc)   # also reaps children a finished program left behind
        seconds = time.monotonic() - start
        stdout, cut1 = _read_capped(out, max_output)
        stderr, cut2 = _read_capped(err, max_output)
    return ProcessResult(argv, None if timed_out else proc.returncode, stdout, stderr,
                         seconds, timed_out, cut1 or cut2)


def wait_for(proc: subprocess.Popen, timeout: float) -> int:
    """`proc.wait(timeout)` without its polling: Popen sleeps in growing steps up to 50 ms, which
    for the many short programs a ladder runs adds up to about as long again.  Waits on a pidfd
    (Linux 5.3+) where there is one, else as Popen does; TimeoutExpired past `timeout`."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return proc.wait(timeout=timeout)
    try:
        if not select.select([fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(proc.args, timeout)
    finally:
        os.close(fd)
    return proc.wait()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
