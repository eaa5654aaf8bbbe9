"""The emu backend: CUDA programs compiled with g++ and run on the CPU.

    rewrite_cuda(source, filename) -> str            (raises EmuUnsupported)
    build_emu(cu_files, out_exe, sanitize=...) -> BuildResult
    emulate(cu_file, args, seeds=3, sanitize=False, timeout=60) -> EmuOutcome

Takes an unmodified `.cu`; rewrites it, compiles it against t2c's CUDA-on-CPU runtime in
`include/` and runs it under seeds that permute thread and block order, optionally with
AddressSanitizer and UBSan. Gives one of `settings.STATUSES`, with the `.cu` line where known.
A correctness tier, never a source of speed numbers. Knobs and exit codes: `settings.py`; the
`t2c run` command: `command.py`. docs/verification.md, "The emu backend".
"""
from .build import BuildResult, build_emu
from .emulate import EmuOutcome, SeedRun, emulate
from .rewrite import EmuUnsupported, rewrite_cuda

__all__ = ["rewrite_cuda", "EmuUnsupported", "build_emu", "BuildResult", "emulate", "EmuOutcome", "SeedRun"]
