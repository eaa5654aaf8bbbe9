"""t2c: C kernels and prose specs to CUDA that is verified and measured.

The package follows the pipeline, one folder a stage:

    frontends/ (C, prose) -> ir/ (the IS) -> analysis/ -> generators/ -> verify/
    runtime/ (gcc, nvcc, gpu and emu backends, process runner)
    engine/ (batch targets, cache, executors) -> report/

`t2c.cli` is the command line over all of it.
"""
__version__ = "0.1.0"
