"""Read one run of an emulated program: what happened, in one line with file:line.

`classify(result)` takes a `ProcessResult` and gives a `RunVerdict(status, message,
file, line)`.  Sources, most specific first: the runtime's own finding lines
(`t2c-emu: <kind>: <message> at <file>:<line>`), an AddressSanitizer or UBSan report
(the first stack frame outside the emu runtime and the system names the kernel line,
since the rewritten source carries #line directives), a signal, a non-zero exit.
"""
from __future__ import annotations

import re
import signal
from dataclasses import dataclass

from ..process import ProcessResult
from .settings import FINDING_STATUS

_FINDING = re.compile(r"^t2c-emu: ([a-z-]+): (.*) at (\S+?):(\d+)\s*$", re.M)
_ASAN = re.compile(r"ERROR: AddressSanitizer: ([\w-]+)(.*)")
_ACCESS = re.compile(r"^(READ|WRITE) of size (\d+)", re.M)
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (.+?) (/?[^\s:]+):(\d+)(?::\d+)?\s*$", re.M)
_TSAN = re.compile(r"WARNING: ThreadSanitizer: data race")
_TSAN_ACCESS = re.compile(r"^\s*(Previous )?(read|write|atomic read|atomic write) of size (\d+)", re.M | re.I)
_TSAN_FRAME = re.compile(r"^\s*#\d+ .*? (\S+\.\w+):(\d+)(?::\d+)?(?: \(.*\))?\s*$", re.M)
_UBSAN = re.compile(r"^(\S+?):(\d+):\d+: runtime error: (.*)$", re.M)

_OOB_ASAN = {"heap-buffer-overflow", "stack-buffer-overflow", "global-buffer-overflow", "heap-use-after-free",
             "use-after-poison", "container-overflow", "dynamic-stack-buffer-overflow", "stack-use-after-scope",
             "stack-buffer-underflow", "double-free", "bad-free", "SEGV", "unknown-crash", "wild-addr"}
_OOB_UBSAN = ("out of bounds", "misaligned address", "null pointer", "pointer overflow", "applying non-zero offset",
              "applying zero offset")


@dataclass(frozen=True)
class RunVerdict:
    status: str
    message: str
    file: str | None = None
    line: int | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file else "?"


def classify(result: ProcessResult) -> RunVerdict:
    err = result.stderr
    if result.timed_out:
        return RunVerdict("timeout", f"timed out after {result.seconds:.0f} s (an endless loop or a deadlock)")
    findings = [m for m in _FINDING.finditer(err) if m.group(1) != "note"]
    if findings:
        m = findings[-1]
        kind, msg, file, line = m.group(1), m.group(2), m.group(3), int(m.group(4))
        return RunVerdict(FINDING_STATUS.get(kind, "failed"), f"{kind}: {msg} at {file}:{line}", file, line)
    tsan = _TSAN.search(err)
    if tsan:
        return _tsan_verdict(err)
    asan = _ASAN.search(err)
    if asan:
        return _asan_verdict(asan, err)
    ub = next((m for m in _UBSAN.finditer(err) if _user_file(m.group(1))), None) or _UBSAN.search(err)
    if ub:
        file, line, msg = ub.group(1), int(ub.group(2)), ub.group(3).strip()
        status = "oob" if any(k in msg for k in _OOB_UBSAN) else "failed"
        return RunVerdict(status, f"undefined behaviour: {msg} at {file}:{line}", file, line)
    if result.signal:
        name = signal.Signals(result.signal).name
        return RunVerdict("crash", f"killed by {name} (rerun with --sanitize to find the line)")
    if result.returncode != 0:
        last = next((l.strip() for l in reversed(err.splitlines()) if l.strip()), "")
        return RunVerdict("failed", f"exit code {result.returncode}" + (f": {last[:200]}" if last else ""))
    return RunVerdict("ok", "ok")


def _user_file(path: str) -> bool:
    """A frame in the program itself: not the emu runtime, a system header or a sanitizer."""
    return not (path.startswith("/usr/") or "/t2c_emu/" in path or path.endswith("t2c_emu.h")
                or "sanitizer" in path or path.startswith("../../"))


def _asan_verdict(m: re.Match, err: str) -> RunVerdict:
    kind = m.group(1)
    report = err[m.start():]
    frames = [(f.group(1), f.group(2), int(f.group(3))) for f in _FRAME.finditer(report)]
    where = next((f for f in frames if _user_file(f[1])), None)
    access = _ACCESS.search(report)
    what = f"{access.group(1)} of {access.group(2)} bytes" if access else m.group(2).strip()[:80]
    extra = ""
    alloc = report.find("allocated by thread")
    if alloc >= 0:
        site = next((f for f in _FRAME.finditer(report[alloc:]) if _user_file(f.group(2))), None)
        if site:
            extra = f" (the memory was allocated at {site.group(2)}:{site.group(3)})"
    if kind == "stack-overflow":
        return RunVerdict("crash", "stack overflow in a CUDA thread (raise T2C_EMU_STACK_KIB)"
                          + (f" at {where[1]}:{where[2]}" if where else ""), *(where[1:] if where else ()))
    status = "oob" if kind in _OOB_ASAN else "crash"
    if where is None:
        return RunVerdict(status, f"AddressSanitizer: {kind}: {what}{extra}")
    func = where[0].split("(")[0]
    return RunVerdict(status, f"{kind}: {what} in {func} at {where[1]}:{where[2]}{extra}", where[1], where[2])


def _tsan_verdict(err: str) -> RunVerdict:
    """Two CUDA threads (TSan fibers) touched the same memory with no barrier between them.

    Every report is read (the runtime lets TSan continue after the first); the primary
    line is the first report's read access (the statement consuming data that no
    barrier protects), and the message names the other lines involved."""
    places: list[tuple[str, int, str, int]] = []   # (file, line, kind, size), in report order
    for report in err.split("WARNING: ThreadSanitizer: data race")[1:]:
        found = []
        for sec in re.split(r"\n\s*\n", report.split("SUMMARY:")[0]):
            acc = _TSAN_ACCESS.search(sec)
            frame = next((f for f in _TSAN_FRAME.finditer(sec) if _user_file(f.group(1))), None) if acc else None
            if frame:
                found.append((frame.group(1), int(frame.group(2)), acc.group(2).lower(), int(acc.group(3))))
        found.sort(key=lambda a: "read" not in a[2])   # reads first
        places += found
    if not places:
        return RunVerdict("race", "data race between CUDA threads (ThreadSanitizer; no source line found)")
    file, line, kind, size = places[0]
    others = []
    for f, l, _, _ in places[1:]:
        if (f, l) != (file, line) and f"{f}:{l}" not in others:
            others.append(f"{f}:{l}")
    also = f"; also involved: {', '.join(others[:4])}" if others else ""
    return RunVerdict("race", f"data race: {kind} of {size} bytes at {file}:{line} with no barrier or atomic "
                              f"ordering it against another CUDA thread's access{also}", file, line)
