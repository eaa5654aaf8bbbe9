"""Generators: IS kernel -> candidate `.cu` text.  `poly` is the embedded default (no model).

`generate(kernel, name)` dispatches by generator name; an unknown or unavailable
generator is a UserError naming the ones there are.  GENERATOR_VERSION goes into
the batch engine's cache keys: bump it when generated code changes on purpose.
"""
from __future__ import annotations

from ..errors import UserError

GENERATOR_VERSION = "poly-1"
GENERATORS = ("poly",)


def generate(kernel, name: str = "poly", options=None) -> str:
    if name == "poly":
        from .poly import PolyOptions, generate as poly_generate
        return poly_generate(kernel, options or PolyOptions())
    raise UserError(f"unknown generator '{name}'", hint=f"use one of: {', '.join(GENERATORS)}")
