"""The GPU a candidate is lowered for: its limits and its fp64 tensor-core shapes, as one record.

The poly generator reads a `Target` instead of constants (shared memory per block, threads
per block, which `mma.sync` shapes exist), and the emu backend models the same instructions
and reports the same device limits, so a candidate that fits the target fits the emulator.
`SM90` (H100, H200) is the default: the figures are NVIDIA's for compute capability 9.0.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mma:
    """One fp64 `mma.sync` shape: m x n x k products per warp instruction, from compute capability `arch`."""
    m: int
    n: int
    k: int
    arch: int

    @property
    def shape(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"

    @property
    def ptx(self) -> str:
        """The PTX instruction (row-major A, column-major B, all operands double)."""
        return f"mma.sync.aligned.{self.shape}.row.col.f64.f64.f64.f64"


M8N8K4 = Mma(8, 8, 4, 80)
M16N8K8 = Mma(16, 8, 8, 90)


@dataclass(frozen=True)
class Target:
    arch: int = 90                           # compute capability, major * 10 + minor
    shared_static: int = 48 * 1024           # shared memory a block declares statically (or dynamically without opt-in)
    shared_optin: int = 232448               # dynamic shared memory a block may opt into (227 KiB)
    shared_sm: int = 233472                  # shared memory per SM (228 KiB)
    max_threads: int = 1024                  # threads per block
    max_grid_yz: int = 65535                 # blocks on grid.y and on grid.z (grid.x takes 2^31 - 1)
    sms: int = 132                           # streaming multiprocessors (H100 SXM, H200)
    sm_threads: int = 2048                   # resident threads per SM
    mma: tuple[Mma, ...] = (M8N8K4, M16N8K8)   # the fp64 tensor-core shapes candidates use

    def has(self, mma: Mma) -> bool:
        """Whether this target runs `mma` on its tensor cores."""
        return mma in self.mma and self.arch >= mma.arch


SM90 = Target()
