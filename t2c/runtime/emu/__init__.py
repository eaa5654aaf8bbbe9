"""The emu backend: CUDA programs compiled with g++ and run on the CPU.

A correctness tier, never a source of speed numbers.  An unmodified `.cu` file is
rewritten (`rewrite_cuda`, tree-sitter based), compiled against t2c's CUDA-on-CPU
runtime in `include/` (`build_emu`), and run under several seeds that permute thread
and block order (`emulate`), optionally with AddressSanitizer and UBSan.  Threads of a
block are fibers; `__syncthreads` and warp operations are fiber barriers that detect
divergence; a cooperative launch holds every block at once, so that cooperative groups'
`grid.sync()` waits for all of them.  The outcome is one of `settings.STATUSES`, with the
.cu line where known.

    rewrite_cuda(source, filename) -> str            (raises EmuUnsupported)
    build_emu(cu_files, out_exe, sanitize=...) -> BuildResult
    emulate(cu_file, args, seeds=3, sanitize=False, timeout=60) -> EmuOutcome

Knobs and exit codes: `settings.py`.  The `t2c run` command: `command.py`.
"""
from .build import BuildResult, build_emu
from .emulate import EmuOutcome, SeedRun, emulate
from .rewrite import EmuUnsupported, rewrite_cuda

__all__ = ["rewrite_cuda", "EmuUnsupported", "build_emu", "BuildResult", "emulate", "EmuOutcome", "SeedRun"]
