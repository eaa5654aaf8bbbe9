"""The element types the IS knows: their sizes and numpy names, and the 16-bit storage types'
conversions and headers.  The lowest IR module: the IS records and the C syntax both read it."""
from __future__ import annotations

#: Element types the IS knows, with their size in bytes and numpy name.
DTYPES = {
    "double": (8, "float64"),
    "float": (4, "float32"),
    "int": (4, "int32"),
    "unsigned": (4, "uint32"),
    "long": (8, "int64"),
    "unsigned long": (8, "uint64"),
    "short": (2, "int16"),
    "unsigned short": (2, "uint16"),
    "char": (1, "int8"),
    "unsigned char": (1, "uint8"),
    "bool": (1, "bool"),                # C's _Bool (stdbool.h's bool), CUDA's bool: 0 or 1
    "__half": (2, "float16"),
    "__nv_bfloat16": (2, "uint16"),     # numpy has no bfloat16: its bit pattern (verify/halfs.py)
}
#: 16-bit floating storage types, named as CUDA names them (cuda_fp16.h, cuda_bf16.h), ->
#: (the conversion to float, the conversion from float rounding to nearest even).  They are
#: storage only: a reference reads them through the first and stores through the second, and
#: computes in float between (docs/specs.md, "float16 and bfloat16").
HALF_DTYPES = {
    "__half": ("__half2float", "__float2half_rn"),
    "__nv_bfloat16": ("__bfloat162float", "__float2bfloat16_rn"),
}
#: The CUDA header that declares each (CUDA programs over them include it).
HALF_HEADERS = {"__half": "cuda_fp16.h", "__nv_bfloat16": "cuda_bf16.h"}
FLOAT_DTYPES = ("double", "float", *HALF_DTYPES)
