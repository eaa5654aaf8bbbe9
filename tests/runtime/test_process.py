"""The process runner: timeouts kill the whole group, output is bounded."""
import os
import sys
import time

from t2c.runtime.process import run_process


def test_ok_and_output():
    r = run_process([sys.executable, "-c", "print('hi')"], timeout=30)
    assert r.ok and r.stdout == "hi\n" and r.describe() == "exit code 0"


def test_timeout_kills_children_too(tmp_path):
    marker = tmp_path / "child-alive"
    code = (f"import subprocess,sys; subprocess.Popen([sys.executable,'-c',"
            f"'import time; time.sleep(2); open(r\"{marker}\",\"w\").write(\"x\")']); "
            f"import time; time.sleep(60)")
    start = time.monotonic()
    r = run_process([sys.executable, "-c", code], timeout=1)
    assert r.timed_out and not r.ok and r.returncode is None
    assert time.monotonic() - start < 10
    time.sleep(2.5)
    assert not marker.exists(), "the child in the process group was killed as well"


def test_crash_is_reported_by_signal():
    r = run_process([sys.executable, "-c", "import os,signal; os.kill(os.getpid(), signal.SIGSEGV)"],
                    timeout=30)
    assert r.signal == 11 and "SIGSEGV" in r.describe()


def test_output_is_capped():
    r = run_process([sys.executable, "-c", "print('x' * 100000)"], timeout=30, max_output=1000)
    assert r.output_cut and len(r.stdout) == 1000


def test_background_work_runs_at_a_lower_priority():
    """Reference runs nobody times (test suites, mutants) yield the CPU to the processes that hold
    a GPU slot: their nice value, and their session's autogroup where the kernel has one."""
    r = run_process(["sh", "-c", "cut -d' ' -f19 /proc/self/stat; cat /proc/$$/autogroup 2>/dev/null || true"],
                    nice=10)
    lines = r.stdout.split("\n")
    assert int(lines[0]) >= 10                  # already nicer than 10: stays so
    if os.path.exists("/proc/self/autogroup") and lines[1].strip() and os.nice(0) <= 10:
        assert lines[1].split()[-1] == "10"
    assert run_process(["sh", "-c", "cut -d' ' -f19 /proc/self/stat"]).stdout.strip() == str(os.nice(0))


def test_a_program_still_held_open_for_writing_is_started_again(monkeypatch):
    # another thread's child, forked while the program was being written, holds it until it
    # execs: the exec fails with ETXTBSY for a moment, which costs a retry, not the run
    import errno
    import subprocess
    real, calls = subprocess.Popen, []

    def busy_twice(*a, **kw):
        calls.append(1)
        if len(calls) <= 2:
            raise OSError(errno.ETXTBSY, "Text file busy")
        return real(*a, **kw)
    monkeypatch.setattr(subprocess, "Popen", busy_twice)
    r = run_process(["sh", "-c", "echo hi"])
    assert r.returncode == 0 and r.stdout.strip() == "hi" and len(calls) == 3
