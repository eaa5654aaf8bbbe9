"""The moves of the options search, generated from the option records, and which to try first.

    space(options) -> [(kind, name, options)];  limit(evidence) -> str;  neighbours(options, evidence)

A move sets one searched field of `PolyOptions` to a candidate value its record declares
(`option(default, {kind: values})`), named `path value` (`grid.block_1d 512`, `loops.fuse off`);
fields of a record that is off are not searched. `limit` reads the bench rung's figures against
the measured ceilings: `memory`, `compute`, `launch` (both under 5%) or `unknown`; `neighbours`
orders the moves by it, and after a rejection tries turning transformations off first.
docs/poly.md, "Evolution".
"""
from __future__ import annotations

from ..poly import PolyOptions
from ..poly.options import leaves

#: which kinds of moves to try first, by what limits the best candidate
ORDER = {"launch": ("launch", "block", "tile", "memory", "pass"),
         "memory": ("memory", "tile", "block", "launch", "pass"),
         "compute": ("tile", "block", "memory", "launch", "pass"),
         "unknown": ("block", "tile", "launch", "memory", "pass"),
         "rejected": ("pass", "launch", "memory", "block", "tile")}


def _text(value) -> str:
    if value is None or value is False:
        return "off"
    if value is True:
        return "on"
    if isinstance(value, tuple):
        return "x".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{k} {_text(v)}" for k, v in value.items())
    return str(value)


def space(options: PolyOptions) -> list[tuple[str, str, PolyOptions]]:
    """(kind, move, options after it) for every declared candidate value of every searched
    field of `options`, in the records' declaration order (a record's own candidates before its
    fields'); a move that changes nothing, or what an earlier move changed, is left out."""
    out, seen = [], {options}
    for path, f, value, _ in leaves(options):
        for kind, values in f.metadata.get("search", {}).items():
            for v in values:
                if isinstance(v, dict):
                    if not all(_on(options, f"{path}.{k}") for k in v):
                        continue                 # changes inside a record that is off
                    name, new = f"{path}: {_text(v)}", options.replace({f"{path}.{k}": x for k, x in v.items()})
                else:
                    name, new = f"{path} {_text(v)}", options.replace({path: v})
                if new not in seen:
                    seen.add(new)
                    out.append((kind, name, new))
    return out


def _on(options, path: str) -> bool:
    """Whether every record on the way to `path`'s field is on."""
    for name in path.split(".")[:-1]:
        options = getattr(options, name)
        if options is None:
            return False
    return True


def kinds(options: PolyOptions) -> dict[str, str]:
    """move -> its kind, for the moves from `options`."""
    return {name: kind for kind, name, _ in space(options)}


def limit(evidence) -> str:
    """What bounds an accepted candidate, from its bench figures (see the module docstring)."""
    from ...runtime.ceilings import cached
    from ...verify.evidence import rates
    r, ceil = rates((evidence.timings if evidence else {}) or {}), cached()
    if not r or not ceil or not ceil.get("gbps") or not ceil.get("tflops"):
        return "unknown"
    mem, comp = r["gbps"] / ceil["gbps"], r["tflops"] / ceil["tflops"]
    if max(mem, comp) < 0.05:
        return "launch"
    return "memory" if mem >= comp else "compute"


def neighbours(options: PolyOptions, evidence) -> list[tuple[str, PolyOptions]]:
    """(move, options) for every move that changes `options`, the limit's kinds first;
    `sequential` only for a rejected candidate (the last resort, always correct)."""
    accepted = bool(evidence and evidence.accepted)
    order = ORDER[limit(evidence) if accepted else "rejected"]
    moves = space(options)
    return [(name, new) for kind in order for k, name, new in moves
            if k == kind and not (accepted and name.startswith("sequential "))]
