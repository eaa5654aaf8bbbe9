"""findings.classify: runtime findings, sanitizer reports, signals and exit codes."""
from __future__ import annotations

from t2c.runtime.emu.findings import classify
from t2c.runtime.process import ProcessResult


def result(stderr="", rc=0, timed_out=False) -> ProcessResult:
    return ProcessResult(("prog",), None if timed_out else rc, "", stderr, 1.0, timed_out)


def test_runtime_finding_line_wins():
    err = ("t2c-emu: note: something harmless at x.cu:1\n"
           "t2c-emu: divergent-barrier: __syncthreads() reached by 16 of 64 threads in block (0,0,0) of kernel k at k.cu:28\n")
    v = classify(result(err, 97))
    assert (v.status, v.file, v.line) == ("divergent_barrier", "k.cu", 28)
    assert v.message.startswith("divergent-barrier: ") and v.message.endswith("at k.cu:28")


def test_asan_report_names_first_user_frame_and_allocation():
    err = """=================================================================
==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 at pc 0x5 bp 0x7 sp 0x8
WRITE of size 4 at 0x6190000004e0 thread T0
    #0 0x55d1 in scale(float*, int) /work/bugs/oob.cu:19
    #1 0x55d2 in void t2c_emu::launch<false>() /work/t2c/runtime/emu/include/t2c_emu/launch.h:44
    #2 0x55d3 in main /work/bugs/oob.cu:30

0x6190000004e0 is located 0 bytes to the right of 4000-byte region
allocated by thread T0 here:
    #0 0x7f in __interceptor_posix_memalign ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:226
    #1 0x55 in allocate /work/t2c/runtime/emu/include/t2c_emu/runtime.cpp:700
    #2 0x56 in main /work/bugs/oob.cu:28
"""
    v = classify(result(err, 94))
    assert (v.status, v.file, v.line) == ("oob", "/work/bugs/oob.cu", 19)
    assert "WRITE of 4 bytes in scale" in v.message and "allocated at /work/bugs/oob.cu:28" in v.message


def test_ubsan_bounds_is_oob_and_other_ub_fails():
    v = classify(result("k.cu:24:7: runtime error: index 64 out of bounds for type 'int [64]'\n", 1))
    assert (v.status, v.line) == ("oob", 24)
    v = classify(result("k.cu:9:3: runtime error: signed integer overflow: 2147483647 + 1\n", 1))
    assert (v.status, v.line) == ("failed", 9)


def test_tsan_data_race_prefers_the_read():
    err = """==================
WARNING: ThreadSanitizer: data race (pid=1)
  Write of size 4 at 0x7b by thread T3:
    #0 compact(int*) /w/count.cu:22 (prog+0x1)
    #1 t2c_emu::fiber_main /w/t2c_emu/runtime.cpp:300 (prog+0x2)

  Previous read of size 4 at 0x7b by thread T2:
    #0 compact(int*) /w/count.cu:21 (prog+0x1)

SUMMARY: ThreadSanitizer: data race /w/count.cu:22 in compact(int*)
"""
    v = classify(result(err, 92))
    assert (v.status, v.file, v.line) == ("race", "/w/count.cu", 21)
    assert "also involved: /w/count.cu:22" in v.message


def test_signal_timeout_and_exit_code():
    assert classify(result(rc=-11)).status == "crash"
    assert "SIGSEGV" in classify(result(rc=-11)).message
    assert classify(result(timed_out=True)).status == "timeout"
    v = classify(result("mismatch at 3\n", 2))
    assert v.status == "failed" and v.message == "exit code 2: mismatch at 3"
    assert classify(result()).status == "ok"
