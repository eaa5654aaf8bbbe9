"""The emu backend's knobs and constants, in one place.

Environment variables read by the emulated program (`T2C_EMU_SEED`, `T2C_EMU_BLOCK_THREADS`,
`T2C_EMU_STACK_KIB`: Python sets them per run) and by Python (`T2C_EMU_CACHE`, `T2C_CXX`,
`T2C_CC`), with their defaults; the statuses, exit codes and finding format, which mirror
`include/t2c_emu/device.h` (`tests/emu/test_settings.py` checks that they agree).
docs/verification.md, "The emu backend".
"""
from __future__ import annotations

import os
from pathlib import Path

from ... import config

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
RUNTIME_SOURCE = INCLUDE_DIR / "t2c_emu" / "runtime.cpp"

SEED_ENV = "T2C_EMU_SEED"
BLOCK_THREADS_ENV = "T2C_EMU_BLOCK_THREADS"
STACK_ENV = "T2C_EMU_STACK_KIB"

EXIT_TRAP = 95
EXIT_INTERNAL = 96
EXIT_DIVERGENT = 97
EXIT_MEMORY = 98
EXIT_UNSUPPORTED = 99
EXIT_ASAN = 94
EXIT_UBSAN = 93

# `t2c-emu: <kind>: <message> at <file>:<line>` — kind → EmuOutcome.status
FINDING_STATUS = {
    "divergent-barrier": "divergent_barrier",
    "grid-sync": "divergent_barrier",       # grid.sync() outside a cooperative launch: barrier misuse
    "oob": "oob",
    "unsupported": "unsupported",
    "trap": "failed",
    "resource": "failed",
    "internal": "crash",
    "misaligned-address": "crash",          # a GPU stops the kernel: misaligned address
}

STATUSES = ("ok", "failed", "race", "oob", "divergent_barrier", "unsupported", "build_error", "timeout", "crash")

CXX_STD = "-std=gnu++17"   # nvcc 12/13 default to C++17
# CUDA code type-puns freely (float4 loads of float arrays, __float_as_int-style casts).
COMMON_FLAGS = ("-fno-strict-aliasing", "-pthread")
OPT_FLAGS = ("-O2",)
SANITIZE_FLAGS = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
                  "-fno-sanitize-recover=undefined")
# The runtime itself (scheduler, fibers, copies) is t2c's code, not the candidate's: optimized and
# uninstrumented under both sanitizers, driving their fiber APIs.  Heap memory it hands out still
# comes from the sanitizer's allocator, so device arrays and shared memory keep their redzones.
ASAN_RUNTIME_FLAGS = ("-O2", "-g", "-fno-omit-frame-pointer", "-DT2C_ASAN=1")   # frames: allocation sites
# Race checking: the program under ThreadSanitizer; the runtime uninstrumented (so its
# own bookkeeping is not mistaken for races) but driving TSan's fiber API.
TSAN_FLAGS = ("-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=thread")
TSAN_RUNTIME_FLAGS = ("-O2", "-g", "-DT2C_TSAN=1")
EXIT_TSAN = 92


def build_flags(sanitize) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(program flags, runtime flags, link flags) for sanitize = False | True/'address' | 'thread'."""
    if sanitize == "thread":
        return TSAN_FLAGS, TSAN_RUNTIME_FLAGS, ("-fsanitize=thread",)
    if sanitize in (True, "address"):
        return SANITIZE_FLAGS, ASAN_RUNTIME_FLAGS, SANITIZE_FLAGS
    if sanitize in (False, None):
        return OPT_FLAGS, OPT_FLAGS, ()
    raise ValueError(f"sanitize must be False, True, 'address' or 'thread', not {sanitize!r}")


def cxx() -> str:
    return config.load().cxx


def cc() -> str:
    return config.load().cc


def cache_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The emu build cache: explicit, else T2C_EMU_CACHE, else under t2c's cache directory."""
    if explicit is not None:
        return Path(explicit)
    cfg = config.load()
    return cfg.emu_cache or cfg.cache_dir / "emu"
