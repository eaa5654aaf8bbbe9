"""The static rung: what a candidate `.cu` may contain, read with tree-sitter-cuda.

    check_static(kernel, source, filename) -> StaticResult

Takes the candidate's source; gives findings that name `file:line:col`, a rule and what to do,
before anything is built or run. Refuses: a wrong or missing ABI (`NAME`, `NAME_device` with C
linkage, parameters as the IS says, `NAME_device` neither allocating nor copying host data);
file, environment, process, timer, host-thread and output calls; non-blocking side streams;
libraries; headers outside the CUDA toolkit and the C/C++ standard library; harness symbols and
redefinitions; token pasting; constructor attributes. A screen, not a proof: the runtime rungs
check behaviour. The rules in full: docs/verification.md, "The ladder".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter
import tree_sitter_cuda

from ..ir import Kernel, abi


def _names(rule: str, text: str) -> dict[str, str]:
    return {n: rule for n in text.split()}


FORBIDDEN = {
    **_names("file", """fopen fopen64 freopen fdopen fclose fread fgets fgetc fscanf fseek ftell
        rewind tmpfile tmpnam open open64 openat creat read pread lseek close mmap munmap
        stat lstat fstat access opendir readdir scandir readlink unlink remove rename mkdir
        rmdir chdir getcwd FILE ifstream ofstream fstream filesystem dup dup2 pipe socket
        connect bind ioctl fcntl cudaImportExternalMemory"""),
    **_names("environment", "getenv secure_getenv setenv putenv unsetenv clearenv environ __environ"),
    **_names("process", """system popen pclose execl execlp execle execv execvp execvpe execve
        fexecve fork vfork clone posix_spawn posix_spawnp kill raise signal sigaction exit
        _exit _Exit quick_exit abort atexit at_quick_exit dlopen dlsym dlclose syscall
        setjmp longjmp ptrace prctl"""),
    **_names("timer", """clock clock64 __globaltimer time gettimeofday clock_gettime timespec_get
        times getrusage chrono rdtsc __rdtsc __rdtscp cudaEventElapsedTime cuEventElapsedTime
        nanosleep usleep sleep"""),
    **_names("thread", "thread jthread async pthread_create pthread_join cudaLaunchHostFunc "
                       "cudaStreamAddCallback"),
    **_names("side stream", "cudaStreamNonBlocking"),
    **_names("output", """printf fprintf vprintf vfprintf puts fputs putchar fputc putc fwrite
        write perror cout cerr clog wcout dprintf"""),
}
LIBRARY_PREFIXES = ("cublas", "cusparse", "cusolver", "cufft", "curand", "cudnn", "nvrtc",
                    "nccl", "cutlass", "cute")
LIBRARY_NAMESPACES = {"thrust", "cub", "cutlass", "cute"}
DRIVER_API = re.compile(r"^cu[A-Z]")
#: Names a candidate must not define: the harness's and the libraries' own.
RESERVED_DEFINITIONS = re.compile(r"^(t2c|T2C|cuda|__cuda|cu[A-Z]|nv|main$)")
LIBC_DEFINITIONS = {n for n, r in FORBIDDEN.items() if r in ("file", "output", "process", "timer")} | {
    "malloc", "free", "calloc", "realloc", "memcpy", "memset", "memmove", "strcmp", "atoi"}

ALLOWED_INCLUDES = set("""
assert.h float.h limits.h math.h stddef.h stdint.h stdbool.h stdlib.h string.h stdio.h inttypes.h
cassert cfloat climits cmath cstddef cstdint cstdlib cstring cstdio cinttypes algorithm array
limits numeric type_traits utility initializer_list tuple new
cuda_runtime.h cuda_runtime_api.h device_launch_parameters.h device_functions.h
device_atomic_functions.h math_constants.h math_functions.h vector_types.h vector_functions.h
builtin_types.h cuda_fp16.h cuda_bf16.h cuda_fp8.h cooperative_groups.h mma.h cuda_pipeline.h
cuda_awbarrier.h sm_60_atomic_functions.h sm_20_atomic_functions.h
""".split())
ALLOWED_INCLUDE_PREFIXES = ("cooperative_groups/", "cuda/std/", "cuda/barrier", "cuda/pipeline",
                            "cuda/atomic", "cuda/annotated_ptr")
ASM_FORBIDDEN = re.compile(r"globaltimer|%clock|syscall|sysenter|int\s+\$?0x80|rdtsc", re.I)
#: Calls that put host memory or host computation into NAME_device.
DEVICE_ENTRY_FORBIDDEN = {"cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc",
                          "cudaMallocPitch", "malloc", "calloc", "realloc", "new"}
#: scratch NAME_device may take (device memory for the call), and the call that must give it back
#: in the same function
SCRATCH = {"cudaMallocAsync": "cudaFreeAsync", "cudaMalloc": "cudaFree"}
HOST_COPY_KINDS = {"cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost", "cudaMemcpyDefault",
                   "cudaMemcpyHostToHost"}

_TYPE_WORDS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "signed"}


@dataclass(frozen=True)
class Finding:
    line: int
    col: int
    rule: str
    message: str

    def where(self, filename: str) -> str:
        return f"{filename}:{self.line}:{self.col}"


@dataclass
class StaticResult:
    ok: bool
    findings: list[Finding] = field(default_factory=list)
    filename: str = "candidate.cu"

    @property
    def reason(self) -> str:
        f = self.findings[0] if self.findings else None
        return f"{f.rule}: {f.message} ({f.where(self.filename)})" if f else ""

    def summary(self) -> list[str]:
        return [f"{f.where(self.filename)}: {f.rule}: {f.message}" for f in self.findings]


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _pos(node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.start_point[1] + 1


def _declarator_name(node):
    """The identifier node a declarator declares (through pointers, arrays, functions)."""
    while node is not None and node.type not in ("identifier", "field_identifier",
                                                 "qualified_identifier", "destructor_name"):
        node = node.child_by_field_name("declarator")
    return node


def _c_linkage(node) -> bool:
    p = node.parent
    while p is not None:
        if p.type == "linkage_specification":
            return any(c.type == "string_literal" and _text(c) == '"C"' for c in p.children)
        p = p.parent
    return False


def _function_defs(root):
    """(name, definition node, C linkage) for every function definition."""
    out = []
    for n in _walk(root):
        if n.type == "function_definition":
            ident = _declarator_name(n.child_by_field_name("declarator"))
            if ident is not None:
                out.append((_text(ident), n, _c_linkage(n)))
    return out


def _c_declared(root) -> set[str]:
    """Names declared (not defined) inside extern "C" blocks or with extern "C"."""
    out = set()
    for n in _walk(root):
        if n.type == "declaration" and _c_linkage(n):
            for d in n.children_by_field_name("declarator"):
                ident = _declarator_name(d)
                if ident is not None:
                    out.add(_text(ident))
    return out


def _variables(root) -> set[str]:
    """Names the candidate declares as variables or parameters (not as functions)."""
    out = set()
    for n in _walk(root):
        if n.type in ("declaration", "parameter_declaration", "field_declaration"):
            for d in n.children_by_field_name("declarator"):
                probe = d
                is_function = False
                while probe is not None:
                    if probe.type == "function_declarator":
                        is_function = True
                        break
                    probe = probe.child_by_field_name("declarator")
                ident = _declarator_name(d)
                if ident is not None and not is_function and ident.type == "identifier":
                    out.add(_text(ident))
    return out


def _param_types(defn) -> list[tuple[str, bool] | None]:
    """(base type, is pointer) per parameter of a definition; None where unknown."""
    fdecl = defn.child_by_field_name("declarator")
    while fdecl is not None and fdecl.type != "function_declarator":
        fdecl = fdecl.child_by_field_name("declarator")
    params = fdecl.child_by_field_name("parameters") if fdecl else None
    out = []
    for p in (params.children if params else []):
        if p.type != "parameter_declaration":
            continue
        t = p.child_by_field_name("type")
        words = [w for w in (_text(t).split() if t else []) if w not in _TYPE_WORDS]
        base = " ".join(words)
        d = p.child_by_field_name("declarator")
        pointer = False
        while d is not None:
            if d.type in ("pointer_declarator", "abstract_pointer_declarator", "array_declarator",
                          "abstract_array_declarator"):
                pointer = True
            d = d.child_by_field_name("declarator")
        out.append((base, pointer) if t is not None and t.type in ("primitive_type", "sized_type_specifier")
                   else None)
    return out


def _same_type(got: str, want: str) -> bool:
    alias = {"unsigned": "unsigned int", "long": "long int"}
    return alias.get(got, got) == alias.get(want, want)


def _check_abi(k: Kernel, root, add):
    defs = _function_defs(root)
    c_names = _c_declared(root)
    for suffix in ("", "_device"):
        name, want = k.name + suffix, [(p.ctype, p.pointer) for p in abi.params(k, suffix)]
        found = [(n, d, c) for n, d, c in defs if n == name]
        if not found:
            add(root, "abi", f"no definition of '{name}': a candidate exports both {k.name} and "
                             f"{k.name}_device with extern \"C\" (DESIGN §3)")
            continue
        _, defn, linkage = found[0]
        if not (linkage or name in c_names):
            add(defn, "abi", f"'{name}' lacks extern \"C\": the driver links it by its C name")
        types = _param_types(defn)
        if len(types) != len(want):
            add(defn, "abi", f"'{name}' takes {len(types)} parameters; the kernel's ABI has "
                             f"{len(want)}: {', '.join(k.params)}")
            continue
        for i, (got, exp) in enumerate(zip(types, want)):
            if got is None:
                continue
            if got[1] != exp[1] or not _same_type(got[0], exp[0]):
                shown = lambda t: t[0] + (" *" if t[1] else "")
                add(defn, "abi", f"parameter {i + 1} '{k.params[i]}' of '{name}' is {shown(got)}, "
                                 f"the kernel's ABI says {shown(exp)} (lower precision than asked?)")
    _check_device_entry(k, defs, add)


def _calls(node) -> list:
    return [n for n in _walk(node) if n.type == "call_expression" or n.type == "new_expression"]


def _check_device_entry(k: Kernel, defs, add):
    """NAME_device and the host functions it calls must only launch work."""
    by_name = {n: d for n, d, _ in defs}
    todo, seen = [k.name + "_device"], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in by_name:
            continue
        seen.add(name)
        defn = by_name[name]
        if any(_text(c) == "__global__" or _text(c) == "__device__" for c in defn.children):
            continue
        calls = _calls(defn.child_by_field_name("body") or defn)
        for call in calls:
            if (back := SCRATCH.get(_callee(call))) is not None:
                if _pointer(call) is None or _pointer(call) not in {_pointer(c) for c in calls if _callee(c) == back}:
                    add(call, "abi", f"{k.name}_device takes scratch with {_callee(call)} but does not give it "
                                     f"back with {back}({_pointer(call) or '...'}, ...) in the same function; "
                                     f"scratch must not outlive the call")
                continue
            if call.type == "new_expression":
                add(call, "abi", f"{k.name}_device allocates host memory (new); it must only launch "
                                 f"work on the device arrays it is given")
                continue
            callee = _callee(call)
            if callee in DEVICE_ENTRY_FORBIDDEN:
                add(call, "abi", f"{k.name}_device calls {callee}: it must not allocate; "
                                 f"{k.name} (the drop-in) does the allocation and copies (scratch for "
                                 f"the call itself: cudaMallocAsync or cudaMalloc, then cudaFreeAsync or "
                                 f"cudaFree before returning)")
            elif callee.startswith("cudaMemcpy") and "Symbol" not in callee:
                kinds = {_text(t) for t in _walk(call) if t.type == "identifier"}
                if kinds & HOST_COPY_KINDS:
                    add(call, "abi", f"{k.name}_device copies between host and device ({callee}); "
                                     f"its arrays are already on the device")
            elif callee in by_name:
                todo.append(callee)


def _callee(call) -> str:
    fn = call.child_by_field_name("function")
    return _text(fn).split("::")[-1] if fn is not None else ""


def _pointer(call) -> str | None:
    """The variable a cudaMallocAsync fills or a cudaFreeAsync returns: its first argument's
    last identifier (`(void **)&p`, `&p`, `p`)."""
    args = call.child_by_field_name("arguments")
    first = next((c for c in args.named_children if c.type != "comment"), None) if args is not None else None
    names = [_text(n) for n in _walk(first) if n.type == "identifier"] if first is not None else []
    return names[-1] if names else None


def _check_includes(root, add):
    for n in _walk(root):
        if n.type != "preproc_include":
            continue
        path = n.child_by_field_name("path")
        text = _text(path) if path is not None else ""
        if path is None or path.type != "system_lib_string":
            add(n, "include", f"#include {text}: only headers of the CUDA toolkit and the C/C++ "
                              f"standard library, in <...>, may be included")
            continue
        header = text.strip("<>").strip()
        if header in ALLOWED_INCLUDES or header.startswith(ALLOWED_INCLUDE_PREFIXES):
            continue
        lib = header.split("/")[0].split(".")[0].lower()
        if lib.startswith(LIBRARY_PREFIXES) or lib in LIBRARY_NAMESPACES:
            add(n, "library", f"#include <{header}>: a library instead of the candidate's own kernels")
        else:
            add(n, "include", f"#include <{header}> is not a CUDA toolkit or C/C++ standard header "
                              f"t2c allows")


def _check_names(k: Kernel, root, add):
    variables = _variables(root)
    for n in _walk(root):
        t = n.type
        if t in ("identifier", "type_identifier", "namespace_identifier"):
            name = _text(n)
            rule = FORBIDDEN.get(name)
            qualified = n.parent is not None and n.parent.type == "qualified_identifier"
            if rule and (name not in variables or qualified or t == "namespace_identifier"):
                add(n, rule, f"'{name}' is not allowed in a candidate ({rule})")
            elif name.lower().startswith(LIBRARY_PREFIXES) or (t == "namespace_identifier" and
                                                              name in LIBRARY_NAMESPACES):
                add(n, "library", f"'{name}': a library call instead of the candidate's own kernels")
            elif DRIVER_API.match(name) and not name.startswith("cuda"):
                add(n, "library", f"'{name}': the CUDA driver API (module loading from files, "
                                  f"foreign kernels) is not allowed")
            elif name.startswith(("t2c_", "T2C_", "__t2c")):
                add(n, "harness", f"'{name}' belongs to the t2c harness")
        elif t == "preproc_arg":
            body = _text(n)
            if "##" in body:
                add(n, "macro", "token pasting (##) in a macro could assemble a forbidden name")
            for word in re.findall(r"[A-Za-z_]\w*", body):
                rule = FORBIDDEN.get(word)
                if rule:
                    add(n, rule, f"macro uses '{word}' ({rule})")
                    break
                if word.lower().startswith(LIBRARY_PREFIXES):
                    add(n, "library", f"macro uses '{word}': a library call")
                    break
        elif t in ("gnu_asm_expression", "asm_statement") or (t == "string_literal" and
                                                              ASM_FORBIDDEN.search(_text(n))):
            m = ASM_FORBIDDEN.search(_text(n))
            if m:
                rule = "timer" if re.search(r"timer|clock|rdtsc", m.group(0), re.I) else "process"
                add(n, rule, f"inline assembly reads '{m.group(0)}' ({rule})")
        elif t in ("attribute_specifier", "attribute_declaration", "attribute"):
            if re.search(r"\b(constructor|destructor)\b", _text(n)):
                add(n, "attribute", "constructor/destructor attributes run code outside the call")


def _check_definitions(k: Kernel, root, add):
    for name, defn, _ in _function_defs(root):
        if name == "main" or RESERVED_DEFINITIONS.match(name) or name in LIBC_DEFINITIONS:
            add(defn, "harness", f"the candidate defines '{name}', a name of the harness, the CUDA "
                                 f"runtime or the C library")


def check_static(k: Kernel, source: str, filename: str = "candidate.cu") -> StaticResult:
    root = _parser().parse(source.encode()).root_node
    findings: list[Finding] = []
    seen = set()

    def add(node, rule, message):
        line, col = _pos(node)
        key = (line, col, rule, message)
        if key not in seen:
            seen.add(key)
            findings.append(Finding(line, col, rule, message))

    _check_includes(root, add)
    _check_names(k, root, add)
    _check_definitions(k, root, add)
    _check_abi(k, root, add)
    # the most telling finding first: a forbidden capability says more than the header
    # that brought it in or the ABI slip that often comes with it
    findings.sort(key=lambda f: (f.rule in ("include", "abi"), f.rule == "abi", f.line, f.col))
    return StaticResult(not findings, findings, filename)
