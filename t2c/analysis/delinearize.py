"""Flat subscripts of pointers with multi-dimensional extents, as their row-major indices.

    row_major(flat, inner, within) -> [Poly] | None

Takes a flat subscript of a pointer annotated `t2c: array a[n][m]` (`a[i*m + j]`) as an integer
polynomial and the inner extents; gives its indices (`a[i][j]`), dividing by each inner extent in
turn, innermost first, whatever the order of the operands. Refuses (None: the subscript stays
flat) unless each remainder is affine and provably within its extent over the statement's
domain: then the map to the flat index is one-to-one, so the dependences are exactly the flat
accesses', and the generator, flattening again, indexes the same elements. docs/poly.md, "The
model and its normalizations".
"""
from __future__ import annotations

from collections import Counter

from ..ir.extents import Poly


def row_major(flat: Poly, inner: list[Poly], within) -> list[Poly] | None:
    """Indices (outermost first) whose row-major position over extents [*, *inner] is `flat`,
    every index but the first within its extent (`within(index, extent)` proves
    0 <= index < extent); None when there are none such."""
    parts = []
    for extent in reversed(inner):
        if not extent.terms or not _affine(extent):
            return None
        q, r = _divide(flat, extent)
        # The division keeps size terms in the quotient (i*m + m - 1 - j gives i + 1 and -1 - j):
        # the one shift that brings the remainder into [0, extent) is the row-major split.
        for shift in (0, 1, -1):
            index = r + extent * Poly.const(shift)
            if _affine(index) and within(index, extent):
                break
        else:
            return None
        parts.append(index)
        flat = q - Poly.const(shift)
    return [flat, *reversed(parts)] if _affine(flat) else None


def _affine(p: Poly) -> bool:
    return all(len(m) <= 1 for m in p.terms)


def _order(monomial: tuple) -> tuple:
    return len(monomial), monomial               # graded: a division step never grows a term


def _divide(p: Poly, d: Poly) -> tuple[Poly, Poly]:
    """(q, r) with p == q*d + r and no term of r a multiple of d's leading term."""
    lead = max(d.terms, key=_order)
    coef = d.terms[lead]
    q, r = Poly(), Poly()
    while p.terms:
        m = max(p.terms, key=_order)
        c = p.terms[m]
        rest = Counter(m) - Counter(lead)
        if sum(rest.values()) == len(m) - len(lead) and c % coef == 0:
            t = Poly({tuple(sorted(rest.elements())): c // coef})
            q, p = q + t, p - t * d
        else:
            r, p = r + Poly({m: c}), p - Poly({m: c})
    return q, r
