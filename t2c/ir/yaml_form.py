"""The YAML form of the IS: what `t2c is FILE` prints and what a spec may be written in.

`to_yaml(kernel)` and `from_yaml(text)` are inverses: from_yaml(to_yaml(k)) == k
and has the same key.  The reference is kept as a literal block so that it reads
as C.
"""
from __future__ import annotations

import yaml

from .kernel import Array, Count, Domain, Facts, ISError, Kernel, Origin, Scalar, Size, validate


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s: str):
    style = "|" if "\n" in s else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


_Dumper.add_representer(str, _str)


def to_dict(k: Kernel) -> dict:
    d: dict = {"name": k.name}
    if k.description:
        d["description"] = k.description
    if k.origin:
        d["origin"] = {"file": k.origin.file, "function": k.origin.function,
                       "line": k.origin.line, "col": k.origin.col} \
            | ({"lines": " ".join(map(str, k.origin.lines))} if k.origin.lines else {})   # one line
    d["params"] = list(k.params)
    d["sizes"] = {s.name: ({"macro": s.macro} if s.macro else {}) | ({"ctype": s.ctype} if s.ctype != "int" else {})
                  | dict(s.presets) for s in k.sizes}
    if k.constraints:
        d["constraints"] = list(k.constraints)
    d["scalars"] = {s.name: {"dtype": s.dtype, "intent": s.intent} for s in k.scalars}
    d["arrays"] = {a.name: {"dtype": a.dtype, "shape": list(a.shape), "intent": a.intent}
                   | ({"const": True} if a.const else {}) | ({"rows": True} if a.rows else {})
                   | ({"file_scope": True} if a.file_scope else {}) for a in k.arrays}
    d["domains"] = [{"target": x.target, "kind": x.kind}
                    | ({"low": x.low} if x.low is not None else {})
                    | ({"high": x.high} if x.high is not None else {}) for x in k.domains]
    if k.tolerances:
        d["tolerances"] = dict(k.tolerances)
    if k.facts:
        f = k.facts
        d["facts"] = ({"affine": f.affine} if f.affine is not None else {}) \
            | ({"parallel_loops": list(f.parallel_loops)} if f.parallel_loops else {}) \
            | ({"counts": {c.dataset: {"flops": c.flops, "bytes": c.bytes} | ({"bounded": True} if c.bounded else {})
                           for c in f.counts}} if f.counts else {})
    d["reference"] = k.reference
    if k.init:
        d["init"] = k.init
    return d


def to_yaml(k: Kernel) -> str:
    return yaml.dump(to_dict(k), Dumper=_Dumper, sort_keys=False, width=100)


def from_dict(d: dict) -> Kernel:
    try:
        sizes = tuple(Size(name, tuple((ds, int(v)) for ds, v in (p or {}).items() if ds not in ("macro", "ctype")),
                           (p or {}).get("macro"), (p or {}).get("ctype", "int"))
                      for name, p in d.get("sizes", {}).items())
        scalars = tuple(Scalar(n, s["dtype"], s.get("intent", "in"))
                        for n, s in (d.get("scalars") or {}).items())
        arrays = tuple(Array(n, a["dtype"], tuple(str(e) for e in a.get("shape", ())), a["intent"],
                             bool(a.get("const")), bool(a.get("rows")), bool(a.get("file_scope")))
                       for n, a in (d.get("arrays") or {}).items())
        domains = tuple(Domain(x["target"], x["kind"], x.get("low"), x.get("high"))
                        for x in d.get("domains") or ())
        o = d.get("origin")
        origin = Origin(o["file"], o["function"], int(o["line"]), int(o.get("col", 1)),
                        tuple(int(n) for n in str(o.get("lines") or "").split())) if o else None
        f = d.get("facts")
        facts = Facts(f.get("affine"), tuple(f.get("parallel_loops") or ()),
                      tuple(Count(ds, int(c["flops"]), int(c["bytes"]), bool(c.get("bounded")))
                            for ds, c in (f.get("counts") or {}).items())
                      ) if f else None
        return validate(Kernel(
            name=d["name"], params=tuple(d["params"]), sizes=sizes, scalars=scalars, arrays=arrays,
            reference=d["reference"], constraints=tuple(d.get("constraints") or ()),
            domains=domains, init=d.get("init"), description=d.get("description", ""),
            tolerances=tuple((n, u) for n, u in (d.get("tolerances") or {}).items()),
            origin=origin, facts=facts))
    except (KeyError, TypeError) as e:
        raise ISError(f"IS document is missing or misuses a field: {e}") from None


def from_yaml(text: str) -> Kernel:
    return from_dict(yaml.safe_load(text))
