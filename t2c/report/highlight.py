"""A small syntax highlighter for the code a report shows: C/CUDA and the IS's YAML.

`c(text)` and `yaml(text)` return HTML-escaped text with `<span class="...">` around
tokens (classes: com, str, pp, kw, ty, cu, num, key).  One regular expression
per language with a named group per token class; whatever matches no group is
escaped as it is, so the output always shows exactly the input.  Its own code
rather than pygments, so reports look the same with or without that package.
"""
from __future__ import annotations

import re
from html import escape

_C_KEYWORDS = ("if else for while do return break continue switch case default goto sizeof "
               "typedef struct union enum static extern inline const volatile restrict register "
               "auto template typename namespace using new delete true false nullptr")
_C_TYPES = ("void char short int long float double signed unsigned bool size_t dim3 "
            "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t "
            "float2 float4 double2 int2 int4 half __half cudaError_t cudaStream_t cudaEvent_t")
_CUDA = ("__global__ __device__ __host__ __shared__ __constant__ __restrict__ __launch_bounds__ "
         "__syncthreads __syncwarp __shfl_down_sync __shfl_xor_sync __ldg atomicAdd atomicMax "
         "threadIdx blockIdx blockDim gridDim warpSize")


def _words(s: str) -> str:
    return r"\b(?:" + "|".join(re.escape(w) for w in s.split()) + r")\b"


_C = re.compile("|".join([
    r"(?P<com>//[^\n]*|/\*.*?\*/)",
    r"(?P<str>\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')",
    r"(?P<pp>^[ \t]*#[^\n]*)",
    r"(?P<cu>" + _words(_CUDA) + r"|<<<|>>>)",
    r"(?P<kw>" + _words(_C_KEYWORDS) + ")",
    r"(?P<ty>" + _words(_C_TYPES) + ")",
    r"(?P<num>\b(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[fFuUlL]*\b)",
]), re.S | re.M)

_YAML = re.compile("|".join([
    r"(?P<com>#[^\n]*)",
    r"(?P<key>^[ \t-]*[A-Za-z_][\w.-]*(?=:))",
    r"(?P<str>\"(?:\\.|[^\"\\\n])*\"|'[^'\n]*')",
    r"(?P<num>(?<=[\s:\-\[,])-?\d+\.?\d*(?:[eE][+-]?\d+)?\b)",
]), re.M)


def _render(pattern: re.Pattern, text: str) -> str:
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(escape(text[pos:m.start()]))
        out.append(f'<span class="{m.lastgroup}">{escape(m.group())}</span>')
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def c(text: str) -> str:
    return _render(_C, text)


def yaml(text: str) -> str:
    return _render(_YAML, text)


def for_file(name: str, text: str) -> str:
    """By file name: C-like for .c/.cu/.h/.cuh, YAML for .yaml, else escaped only."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix in ("c", "cu", "h", "cuh", "cpp", "cc"):
        return c(text)
    if suffix in ("yaml", "yml"):
        return yaml(text)
    return escape(text)
