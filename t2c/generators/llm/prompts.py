"""What the model is told, and how its code is read back out of an answer.

    is_messages(spec), kernel_messages(k), improve_messages(k, source, note): the requests
    follow_up(messages, answer, text);  ladder_feedback(evidence);  extract(text, languages)

Takes a spec or kernel; gives messages holding the spec's prose and declarations, the IS as a
sequential C reference (without the original program's init, one of the test distributions),
the ABI and the static rung's rules. Never test data, expected values or seeds:
`ladder_feedback` keeps the rung, the reason, the first failing index, the sizes and a race or
out-of-bounds finding, and drops every value the verifier compared. `extract` gives the first
fenced block in one of `languages`, or None. docs/llm.md, "What happens".
"""
from __future__ import annotations

import re

from ...frontends.c import reference_file
from ...ir import Kernel, abi

SYSTEM = ("You are an expert CUDA engineer. You write correct, fast, self-contained CUDA C++ and "
          "answer with exactly one fenced code block and nothing else of substance.")

ABI_RULES = """Rules (a checker enforces them; breaking one rejects the file):
- Export both functions with C linkage, exactly these signatures:
    {host}
    {device}
- `{name}_device` receives device pointers and only launches kernels (no allocation, no copies,
  no synchronisation is needed after the last launch).
- `{name}` is the drop-in on host pointers: allocate device buffers, copy the inputs in, call
  `{name}_device`, copy the outputs back, free.
- Only the CUDA runtime and the C/C++ standard headers; no cuBLAS/Thrust/CUB or other libraries;
  no printf, files, environment, timers, threads, `main` or `t2c_*` names.
- Compute every output for every size the constraints allow; do not special-case sizes or values.
Answer with one ```cuda block holding the whole .cu file."""


def _spec_signature(spec) -> str:
    params = [f"int {s}" for s in spec.sizes] + [f"{t} {s}" for s, t in spec.scalars.items()]
    for a in spec.arrays.values():
        params.append(f"{a.dtype} {a.name}{''.join(f'[{e}]' for e in a.shape)}" if a.shape
                      else f"{a.dtype} *{a.name}")
    return f"void {spec.name}({', '.join(params)})"


def is_messages(spec) -> list[dict]:
    """The spec's front matter and prose (it is prose only) -> a request for its formal part.
    The model reads `spec.text`: the file without its <!-- comments --> (notes for authors)."""
    text = spec.text
    ask = f"""This kernel specification has no formal part yet:

{text.strip()}

Write its sequential reference as one C99 function in a ```c block, with exactly this signature
(sizes, scalars, then arrays, as the front matter lists them; a scalar output is a pointer):

    {_spec_signature(spec)}

Rules: plain loops over the sizes; every array subscript that is written must be an affine
expression of loop variables and sizes (no data-dependent write subscripts: select with an `if`
over a loop variable instead, even if that costs more work); conditions and reads may depend
on the data; no library calls other than <math.h>; no comments with `t2c:`; write every
element of every output. It defines what the kernel computes, so make it obviously correct,
not fast."""
    return [{"role": "system", "content": "You are an expert C and CUDA engineer. Answer with one "
             "fenced code block."}, {"role": "user", "content": ask}]


def kernel_messages(k: Kernel) -> list[dict]:
    reference = reference_file(k.replace(init=None))
    ask = f"""Write a CUDA implementation of the kernel `{k.name}`. Its sequential reference, which
defines the result (arrays are row-major; the `t2c:` comments give sizes, shapes, intents,
constraints and input domains):

```c
{reference.strip()}
```

{ABI_RULES.format(host=abi.declaration(k), device=abi.declaration(k, '_device'), name=k.name)}"""
    tables = "".join(f"- `{a.name}` is a table of row pointers in `{k.name}` ({a.shape[0]} rows of {a.shape[1]} "
                     f"elements, each row contiguous, the rows anywhere); `{k.name}_device` receives the rows "
                     f"contiguous, row i at `{a.name} + i * ({a.shape[1]})`.\n" for a in k.arrays if a.rows)
    tables += "".join(f"- `{a.name}` is the user's file-scope array: `{k.name}` takes no parameter for it and "
                      f"reaches it by its name, declared `{abi.file_scope_declaration(a)}`; "
                      f"`{k.name}_device` receives it as a device pointer.\n" for a in k.arrays if a.file_scope)
    ask = ask.replace("Answer with one ```cuda", tables + "Answer with one ```cuda")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ask}]


def improve_messages(k: Kernel, source: str, note: str) -> list[dict]:
    """A correct candidate and what limits it -> a request for a faster one."""
    return kernel_messages(k) + [
        {"role": "assistant", "content": f"```cuda\n{source.strip()}\n```"},
        {"role": "user", "content": f"This version is correct. {note} Make it faster without "
         "changing the result (coalescing, shared memory, more work per thread, fewer launches). "
         "Same rules; answer with the whole file in one ```cuda block."}]


def follow_up(messages: list[dict], answer: str, feedback: str) -> list[dict]:
    return messages + [{"role": "assistant", "content": answer},
                       {"role": "user", "content": feedback}]


def repair_text(what: str) -> str:
    return f"{what}\nFix it. Same rules; answer with the whole file in one fenced code block."


_COMPARED = re.compile(r"(\w+\[[\d,]*\]) = [^;]*?, expected [^;]*")
_SEED = re.compile(r"\b(scheduling )?seed \d+")
_NUMBERS = re.compile(r"(max error|relative L2|bound) [-+0-9.e]+")


def ladder_feedback(ev) -> str:
    """The ladder's verdict without the test data: rung, reason, where, and the build log."""
    text = _COMPARED.sub(r"\1 is wrong (the first wrong element)", ev.feedback or "")
    text = _NUMBERS.sub(r"\1", _SEED.sub("a schedule", text))
    out = f"The verifier rejected it at the `{ev.rung}` step: {ev.reason}."
    if text:
        out += f"\n{text}"
    if ev.rung == "build":
        log = (ev.rungs[-1].get("detail") or {}).get("log", "")
        out += f"\nCompiler output (tail):\n{log[-1500:]}"
    return out


_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)```", re.S)


def extract(text: str, languages: tuple[str, ...]) -> str | None:
    """The first fenced block in one of `languages` (an unlabelled one counts); None when the
    answer has no usable code, e.g. prose only or a block cut off by the token limit."""
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text or "")]
    for lang, body in blocks:
        if lang in languages and body.strip():
            return body.strip() + "\n"
    for lang, body in blocks:
        if not lang and body.strip():
            return body.strip() + "\n"
    return None
