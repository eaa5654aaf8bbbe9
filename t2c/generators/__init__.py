"""Generators: IS kernel -> candidate `.cu` text.  `poly` is the embedded default (no model);
`llm` and `hybrid` (generators/llm) ask a model and evolve candidates against the ladder.

`generate(kernel, name)` dispatches by generator name; an unknown or unavailable
generator is a UserError naming the ones there are.  (The batch engine keys cached
candidates by a hash of this package's code, so a change here regenerates them.)
"""
from __future__ import annotations

from ..errors import UserError

GENERATORS = ("poly", "llm", "hybrid")


def generate(kernel, name: str = "poly", options=None) -> str:
    if name == "poly":
        from .poly import PolyOptions, generate as poly_generate
        return poly_generate(kernel, options or PolyOptions())
    if name in ("llm", "hybrid"):
        raise UserError(f"the {name} generator needs a model and the ladder: use "
                        "t2c.generators.llm.generate", hint="docs/llm.md")
    raise UserError(f"unknown generator '{name}'", hint=f"use one of: {', '.join(GENERATORS)}")
