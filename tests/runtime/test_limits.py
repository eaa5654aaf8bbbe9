"""Every process t2c starts has a time limit and dies with t2c (issue 35, defect 4).

The reference run stops at `config.timeout` (T2C_TIMEOUT); SIGTERM to the CLI kills the reference
it is running, whose process group is gone afterwards; a compile or a preprocessor run past its
limit is stopped with an error that names the file and what to look for; and nothing in t2c starts
a process other than through runtime/process.py, which gives it all of that.
"""
from __future__ import annotations

import ast
import importlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import t2c.runtime.build as build_module
from t2ctest import ROOT
from t2c.errors import EXIT_INTERRUPTED, UserError
from t2c.runtime.build import BuildError, BuildTimedOut, build

#: the module (the package `t2c.frontends.c` exports its function `preprocess` under that name)
preprocess = importlib.import_module("t2c.frontends.c.preprocess")

#: A kernel whose reference never ends: `v * 0.0 == 0.0` holds for every finite v, and v + 1.0
#: stays finite (it stops growing at 2**53); the result is stored, so the loop is not dead code.
SPIN = """\
void spin(int n, double x[n])
{
  for (int i = 0; i < n; i++) {
    double v = x[i];
    while (v * 0.0 == 0.0)
      v = v + 1.0;
    x[i] = v;
  }
}
"""


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state, ppid, pgrp, ...); None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _live(pids) -> list[int]:
    return [p for p in pids if (s := _stat(p)) is not None and s[0] != "Z"]


def _group(pgid: int) -> list[int]:
    """The live processes of a process group."""
    pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    return [p for p in _live(pids) if (s := _stat(p)) is not None and int(s[2]) == pgid]


def _gone(pids_of, seconds: float = 5.0) -> list[int]:
    """Polls until `pids_of()` is empty or `seconds` pass; what is still alive."""
    end = time.monotonic() + seconds
    while (left := pids_of()) and time.monotonic() < end:
        time.sleep(0.1)
    return left


def _cli(*args) -> list[str]:
    return [sys.executable, "-m", "t2c.cli", *args]


def _env(**extra) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), **extra)


def test_ref_stops_a_reference_that_never_ends_at_the_configured_limit(tmp_path):
    src = tmp_path / "spin.c"
    src.write_text(SPIN)
    start = time.monotonic()
    r = subprocess.run(_cli("ref", str(src), "--size", "n=4", "--inputs", "random", "-o", str(tmp_path / "out")),
                       capture_output=True, text=True, env=_env(T2C_TIMEOUT="1"), timeout=120)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "timed out after 1.0 s (the limit is T2C_TIMEOUT" in r.stderr, r.stderr    # its limit, named
    assert "Traceback" not in r.stderr
    assert time.monotonic() - start < 30


def test_sigterm_to_ref_kills_its_reference_process_group(tmp_path):
    src = tmp_path / "spin.c"
    src.write_text(SPIN)
    log = open(tmp_path / "stderr", "w+")
    p = subprocess.Popen(_cli("ref", str(src), "--size", "n=4", "--inputs", "random", "-o", str(tmp_path / "out")),
                         stdout=subprocess.DEVNULL, stderr=log, env=_env(T2C_TIMEOUT="600"))
    try:
        # the reference: a child of t2c running `prog run DIR n` (prlimit execs it)
        end, child = time.monotonic() + 60, None
        while child is None and p.poll() is None and time.monotonic() < end:
            for pid in _live(int(d) for d in os.listdir("/proc") if d.isdigit()):
                s = _stat(pid)
                if s and int(s[1]) == p.pid:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                    if argv[0].endswith(b"/prog") and argv[1:2] == [b"run"]:
                        child = pid
            time.sleep(0.05)
        assert child is not None, "t2c ref never started its reference: " + Path(tmp_path / "stderr").read_text()
        pgid = os.getpgid(child)
        assert pgid != os.getpgid(p.pid)         # its own group: t2c kills the group, not one pid
        time.sleep(0.3)                          # the reference is spinning, t2c waits on it
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=10) == EXIT_INTERRUPTED
        assert _gone(lambda: _group(pgid)) == [], "the reference outlived t2c"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        log.close()


def _slow_tool(tmp_path: Path) -> tuple[Path, Path]:
    """A compiler stand-in that answers --version at once and otherwise hangs, with a child of
    its own; it writes both pids to a file, so a test can see that neither outlives the limit."""
    pids = tmp_path / "pids"
    tool = tmp_path / "slowcc"
    tool.write_text(f'#!/bin/sh\ncase "$1" in --version) echo "slowcc 1.0";; *) echo $$ >> {pids}; '
                    f'sleep 60 & echo $! >> {pids}; wait;; esac\n')
    tool.chmod(0o755)
    return tool, pids


def _started(pids: Path) -> list[int]:
    return [int(x) for x in pids.read_text().split()] if pids.exists() else []


def test_a_compile_past_its_limit_is_stopped_with_an_error_naming_the_file(tmp_path, monkeypatch):
    tool, pids = _slow_tool(tmp_path)
    monkeypatch.setattr(build_module, "COMPILE_TIMEOUT", 1.0)
    start = time.monotonic()
    with pytest.raises(BuildTimedOut) as e:
        build({"spin_driver.c": "int main(void) { return 0; }\n"}, ["-O2"], cc=str(tool),
              cache_dir=tmp_path / "cache")
    assert time.monotonic() - start < 10
    # the ladder reads it as a build failure, a command or a batch as the user's one line
    assert isinstance(e.value, BuildError) and isinstance(e.value, UserError)
    text = str(e.value)
    assert "slowcc did not finish compiling spin_driver.c within 1 s" in text
    assert "keeps a compiler busy" in text and text in e.value.log.replace("\n", "")
    assert len(_started(pids)) == 2
    assert _gone(lambda: _live(_started(pids))) == [], "the compiler or its child outlived the limit"
    assert not list((tmp_path / "cache").rglob("prog")), "nothing is cached for a stopped build"


def test_a_preprocessor_run_past_its_limit_names_the_file(tmp_path, monkeypatch):
    tool, pids = _slow_tool(tmp_path)
    src = tmp_path / "k.c"
    src.write_text("void k(int n, double x[n]) { for (int i = 0; i < n; i++) x[i] = 0.0; }\n")
    monkeypatch.setattr(preprocess, "COMPILE_TIMEOUT", 1.0)
    with pytest.raises(UserError) as e:
        preprocess.preprocess(src, cc=str(tool))
    assert str(e.value).startswith(f"{src}:1:1: the C preprocessor did not finish within 1 s")
    assert _gone(lambda: _live(_started(pids))) == []


#: What starts a process, outside runtime/process.py: none of it may appear in t2c.
STARTERS = {"subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput",
                           "getstatusoutput"},
            "os": {"system", "popen", "execv", "execve", "execvp", "execvpe", "execl", "execlp",
                   "spawnv", "spawnvp", "spawnl", "spawnlp", "posix_spawn", "posix_spawnp", "fork"}}


def test_t2c_starts_processes_only_through_the_process_runner():
    """runtime/process.py gives every program a limit and a process-group kill when t2c unwinds;
    a direct subprocess call elsewhere would have neither (five compiles and tool queries did)."""
    found = []
    for path in sorted((ROOT / "t2c").rglob("*.py")):
        if path == ROOT / "t2c" / "runtime" / "process.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.attr in STARTERS.get(node.value.id, ())):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module in STARTERS:
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {a.name}"
                          for a in node.names if a.name in STARTERS[node.module]]
    assert found == [], "start these through t2c.runtime.process.run_process:\n" + "\n".join(found)
