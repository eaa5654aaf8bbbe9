"""The C ABI of a kernel (DESIGN §3): the one place that prints it.

    RET NAME(params)           the drop-in, on host pointers
    RET NAME_device(params)    the same parameters, every array a device pointer

The parameters are the kernel's `params` in order: a size is `int` (NAME: as the user declared it), an input scalar its type
by value, an array a pointer to its element type (`Param`).  An array the user's function reads
as a file-scope variable (`Array.file_scope`: `float a[LEN]; void s000(void)`) is no parameter of
NAME, which reaches the user's variable by its name (`extern "C"`); NAME_device and the
reference take it as any other array, and a driver calls NAME through `NAME_all`, which holds
the variables (`file_scope_shim`).  This module gives their records,
the declarations of both entry points, the argument lists that call them, each array's element
and byte counts as C expressions, and the drop-in body (allocate, copy in, call NAME_device,
copy back what is written, free).  The candidate printers, the candidate and reference drivers,
the static rung and the llm prompt take all of these from here; poly's kernels declare their own
parameters as `Param`s too (const, __restrict__).  tests/ir/test_abi.py fails on an f-string
elsewhere that prints a declaration, a NAME_device call, an element count or a byte count.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .dtypes import HALF_HEADERS
from .kernel import Array, Kernel


@dataclass(frozen=True)
class Param:
    """One parameter as C declares it: `T name`, or for a pointer `[const ]T *[__restrict__ ]name`
    (const: never written through; restrict: no other parameter reaches its elements)."""
    name: str
    ctype: str                   # a size's int, a scalar's type, an array's element type
    pointer: bool = False        # an array, passed as a pointer to its first element
    const: bool = False
    restrict: bool = False
    rows: bool = False           # NAME's `T **name`: a table of row pointers (Array.rows)

    def __str__(self) -> str:
        if not self.pointer:
            return f"{self.ctype} {self.name}"
        return f"{'const ' if self.const else ''}{self.ctype} *{'*' if self.rows else ''}" \
            f"{'__restrict__ ' if self.restrict else ''}{self.name}"


def param(k: Kernel, name: str, suffix: str = "_device") -> Param:
    """Parameter `name` of k (one of `k.params`) as NAME (suffix "") or NAME_device takes it: a
    size is `int` and an array's elements are not const, except that NAME declares them as the
    user's function did (`size_t n`, `const float *x`)."""
    arr = next((a for a in k.arrays if a.name == name), None)
    if arr:
        return Param(name, arr.dtype, pointer=True, const=arr.const and not suffix, rows=arr.rows and not suffix)
    sc = next((s for s in k.scalars if s.name == name), None)
    size = next((s for s in k.sizes if s.name == name), None)
    return Param(name, sc.dtype if sc else size.ctype if size and not suffix else "int")


def params(k: Kernel, suffix: str = "_device") -> tuple[Param, ...]:
    outside = {a.name for a in file_scope(k)} if not suffix else set()
    return tuple(param(k, p, suffix) for p in k.params if p not in outside)


def file_scope(k: Kernel) -> list[Array]:
    """The arrays NAME reads and writes as the user's file-scope variables."""
    return [a for a in k.arrays if a.file_scope]


def _variable(a: Array) -> str:
    return f"{a.dtype} {a.name}" + "".join(f"[{e}]" for e in a.shape)


def file_scope_declaration(a: Array) -> str:
    """How a drop-in declares the user's file-scope array `a` (`extern "C" float a[32000];`)."""
    return f'extern "C" {_variable(a)};'


def param_list(k: Kernel, suffix: str = "_device") -> str:
    """`int n, double alpha, double *A`: the parameter list of NAME_device (and of the kernels
    that take all of them), or with suffix "" of NAME."""
    return ", ".join(map(str, params(k, suffix)))


def result_type(k: Kernel) -> str:
    """What both entry points return: the type of the kernel's scalar output, else void."""
    return k.returns.dtype if k.returns else "void"


def head(k: Kernel, suffix: str = "") -> str:
    """The definition's first line of NAME (suffix "") or NAME_device (suffix "_device")."""
    return f'extern "C" {result_type(k)} {k.name}{suffix}({param_list(k, suffix)})'


def declaration(k: Kernel, suffix: str = "") -> str:
    """The prototype of NAME or NAME_device, as a driver or a prompt states it."""
    return head(k, suffix) + ";"


def call_args(k: Kernel, pointer: Callable[[Array], str] = lambda a: a.name,
              value: Callable[[str], str] = lambda name: name) -> str:
    """The arguments of a call in the ABI's order: each array as `pointer(array)` (the caller's
    buffer holding it), each size and scalar as `value(name)` (its name)."""
    arrays = {a.name: a for a in k.arrays}
    return ", ".join(pointer(arrays[p]) if p in arrays else value(p) for p in k.params)


def call(k: Kernel, suffix: str = "", pointer: Callable[[Array], str] = lambda a: a.name,
         value: Callable[[str], str] = lambda name: name) -> str:
    """A call of NAME or NAME_device (no semicolon), its arguments as `call_args` gives them."""
    return f"{k.name}{suffix}({call_args(k, pointer, value)})"


def count(shape: Iterable[str]) -> str:
    """An array's element count as a C size_t expression over the sizes ("1" for a 0-d array)."""
    return " * ".join(f"(size_t)({e})" for e in shape) or "1"


def nbytes(dtype: str, elements: str) -> str:
    """The bytes of `elements` (a C count) elements of `dtype`, as C."""
    return f"{elements} * sizeof({dtype})"


def array_bytes(a: Array) -> str:
    """An array parameter's byte count as C over the sizes."""
    return nbytes(a.dtype, count(a.shape))


def dropin(k: Kernel, entry: str = "", extra: str = "") -> list[str]:
    """The lines of the drop-in NAME: allocate, copy in what the kernel reads, call NAME_device
    (or `entry`, `extra` after the ABI's arguments), copy back what is written, free (and return
    NAME_device's result).  An `out` array is written
    whole before any read (the frontend proves it, or the user declares it), so its contents on
    entry cannot matter and are not copied: its cells start as all-ones bytes (NaN, or -1), so a
    cell a candidate fails to write shows, never the values of an earlier call.  A row table
    (`T **a`) goes through contiguous host rows `flat_a`, gathered before and scattered after."""
    ret = result_type(k)
    out = [f"{file_scope_declaration(a)}   /* the user's file-scope array */" for a in file_scope(k)]
    out += [head(k), "{"]
    host = {a.name: f"flat_{a.name}" if a.rows else a.name for a in k.arrays}
    for a in k.arrays:
        fill = f"  cudaMemset(dev_{a.name}, 0xff, bytes_{a.name});   /* written whole: nothing to copy in */" \
            if a.intent == "out" else f"  cudaMemcpy(dev_{a.name}, {host[a.name]}, bytes_{a.name}, cudaMemcpyHostToDevice);"
        out += [f"  const size_t bytes_{a.name} = {array_bytes(a)};",
                f"  {a.dtype} *dev_{a.name} = NULL;",
                f"  cudaMalloc((void **)&dev_{a.name}, bytes_{a.name} ? bytes_{a.name} : 1);"]
        if a.rows:
            out.append(f"  {a.dtype} *flat_{a.name} = ({a.dtype} *)malloc(bytes_{a.name} ? bytes_{a.name} : 1);")
            out += _rows(a, "gather") if a.intent != "out" else []
        out.append(fill)
    entry = f"{entry or k.name + '_device'}({call_args(k, lambda a: f'dev_{a.name}')}{extra})"
    out.append(f"  const {ret} result = {entry};" if k.returns else f"  {entry};")
    for a in (a for a in k.arrays if a.intent != "in"):
        out.append(f"  cudaMemcpy({host[a.name]}, dev_{a.name}, bytes_{a.name}, cudaMemcpyDeviceToHost);")
        out += _rows(a, "scatter") if a.rows else []
    out += [f"  free(flat_{a.name});" for a in k.arrays if a.rows]
    out += [f"  cudaFree(dev_{a.name});" for a in k.arrays]
    if k.returns:
        out.append("  return result;")
    out.append("}")
    return out


def dropin_call(k: Kernel, pointer: Callable[[Array], str] = lambda a: a.name) -> str:
    """A driver's call of the drop-in NAME with every array at `pointer(array)`: through
    `NAME_all` (file_scope_shim) where NAME reads file-scope arrays."""
    return call(k, "_all" if file_scope(k) else "", pointer)


def file_scope_shim(k: Kernel) -> str:
    """For a driver of a kernel over file-scope arrays ("" for others): the variables themselves
    (the user's program defines them; here the driver does) and `NAME_all`, NAME with every
    array as a parameter: it copies the arrays NAME reads into the variables, calls NAME, and
    copies the variables it writes back."""
    mine = {a.name: a for a in file_scope(k)}
    if not mine:
        return ""
    ps = ", ".join(str(Param(f"t2c_{p}", mine[p].dtype, pointer=True)) if p in mine else str(param(k, p, ""))
                   for p in k.params)
    inner = f"{k.name}({', '.join(p.name for p in params(k, ''))})"
    return "\n".join(["", 'extern "C" {', *(f"{_variable(a)};" for a in mine.values()), "}",
                      f"static {result_type(k)} {k.name}_all({ps})", "{",
                      *(f"  memcpy({a}, t2c_{a}, sizeof {a});" for a, x in mine.items() if x.intent != "out"),
                      f"  const {result_type(k)} result = {inner};" if k.returns else f"  {inner};",
                      *(f"  memcpy(t2c_{a}, {a}, sizeof {a});" for a, x in mine.items() if x.intent != "in"),
                      *(["  return result;"] if k.returns else []), "}", ""])


def _table(a: Array) -> tuple[str, str]:
    """A row table's row count and row length, as C size_t expressions."""
    rows, cols = (f"(size_t)({e})" for e in a.shape)
    return rows, cols


def _rows(a: Array, way: str) -> list[str]:
    """Copy a row table's rows into its contiguous `flat_a` (gather), or back (scatter)."""
    rows, cols = _table(a)
    flat, row = f"flat_{a.name} + r * {cols}", f"(void *){a.name}[r]"
    pair = (flat, row) if way == "gather" else (row, flat)
    return [f"  for (size_t r = 0; r < {rows}; r++)",
            f"    memcpy({pair[0]}, {pair[1]}, {nbytes(a.dtype, cols)});"]


#: A host driver's table of row pointers over a contiguous array, for a `T **` parameter.
_ROWS_HELPER = r"""
static void *t2c_rows(void *data, size_t rows, size_t row_bytes)
{
  char **t = (char **)malloc((rows ? rows : 1) * sizeof *t);
  for (size_t r = 0; r < rows; r++) t[r] = (char *)data + r * row_bytes;
  return t;
}
"""


def rows_helper(k: Kernel) -> str:
    """The C function host_pointer calls, for a driver of a kernel with row tables ("" without)."""
    return _ROWS_HELPER if any(a.rows for a in k.arrays) else ""


def host_pointer(a: Array, name: str) -> str:
    """What a host caller of NAME (or of the reference) passes for array `a` held contiguously at
    `name`: a table of its row pointers for a row table (rows_helper), else `name`."""
    if not a.rows:
        return name
    rows, cols = _table(a)
    return f"({a.dtype} **)t2c_rows({name}, {rows}, {nbytes(a.dtype, cols)})"


def headers(k: Kernel) -> list[str]:
    """The `#include` lines declaring the 16-bit storage types k uses, in its parameters or its
    reference (cuda_fp16.h, cuda_bf16.h): CUDA text over them needs these first; and the C
    library's, where the drop-in copies a row table's rows."""
    return [f"#include <{HALF_HEADERS[t]}>" for t in k.half_dtypes] + \
        (["#include <stdlib.h>", "#include <string.h>"] if any(a.rows for a in k.arrays) else [])
