"""t2c: C kernels and prose specs to CUDA that is verified and measured.

The package follows the pipeline, one folder a stage:

    frontends/ (C, prose) -> ir/ (the IS) -> analysis/ -> generators/ -> verify/
    runtime/ (gcc, nvcc, gpu and emu backends, process runner)
    engine/ (batch targets, cache, executors) -> report/

`t2c.cli` is the command line over all of it.
"""
__version__ = "0.1.0"

import os as _os

# t2c runs its own jobs side by side and its array work is small: BLAS helper threads would only
# spin beside them (numpy's OpenBLAS busy-waits between calls).  Read when numpy is first imported.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
