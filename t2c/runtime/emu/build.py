"""Build CUDA sources into a CPU executable against the emu runtime.

`build_emu(cu_files, out_exe, sanitize=...)` rewrites each `.cu` (and the local headers
it includes with `#include "..."`) with `rewrite_cuda`, compiles them with g++, compiles
`extra_sources` (plain C or C++, such as a verification driver) alongside, and links
them with the runtime.  It gives a `BuildResult`; it raises nothing for a bad program:
a compile error or an unsupported feature comes back as `ok=False` with the log (and,
for the latter, `unsupported` set).

Everything is cached by content under the cache directory: the runtime object by its
sources and flags, the executable by the rewritten sources, extra sources and flags.
A second build of the same program is a file copy.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..process import COMPILE_TIMEOUT, QUERY_TIMEOUT, clean_env, run_process
from . import settings
from ..build import intact, seal
from .kernels import walk
from .rewrite import EmuUnsupported, parse, rewrite_cuda


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    exe: Path | None
    log: str
    command: str
    unsupported: EmuUnsupported | None = None
    cached: bool = False


def build_emu(cu_files, out_exe, *, sanitize: bool | str, extra_sources=(), include_dirs=(), defines=(),
              cache_dir=None) -> BuildResult:
    """Compile `cu_files` (+ `extra_sources`) into `out_exe` for the CPU; see the module doc.

    sanitize: False; True or 'address' (AddressSanitizer + UBSan); 'thread' (the race
    checker: ThreadSanitizer with one TSan fiber per CUDA thread)."""
    cu_files = [Path(p) for p in cu_files]
    extra_sources = [Path(p) for p in extra_sources]
    out_exe = Path(out_exe)
    cache = settings.cache_dir(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    program_flags, runtime_flags, link_flags = settings.build_flags(sanitize)
    flags = _flags(program_flags, include_dirs, defines)
    try:
        units = _rewrite_all(cu_files)
    except EmuUnsupported as e:
        return BuildResult(False, None, str(e), "rewrite_cuda", unsupported=e)
    except OSError as e:
        return BuildResult(False, None, f"cannot read a source: {e}", "rewrite_cuda")

    runtime_obj, log, cmd = _runtime_object(cache, runtime_flags)
    if runtime_obj is None:
        return BuildResult(False, None, "the emu runtime failed to compile (a t2c bug):\n" + log, cmd)
    if not include_dirs and not defines:
        flags = _with_header_precompiled(cache, flags)

    key = _digest([runtime_obj.name, *flags, *link_flags, *[str(p) for p in extra_sources]]
                  + [f"{rel}\0{text}" for rel, (text, _) in sorted(units.items())]
                  + [p.read_bytes() for p in extra_sources if p.exists()])
    build_dir = cache / f"build-{key}"
    cached_exe = build_dir / "program"
    if intact(cached_exe):
        _install(cached_exe, out_exe)
        return BuildResult(True, out_exe, "", f"(cached) {cached_exe}", cached=True)

    with tempfile.TemporaryDirectory(dir=cache, prefix="tmp-build-") as tmp:
        tmp = Path(tmp)
        objects, commands, logs = [], [], []
        src_dir = tmp / "src"
        for rel, (text, _) in units.items():
            (src_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (src_dir / rel).write_text(text)
        top_dirs = sorted({str(p.resolve().parent) for p in cu_files})
        for i, cu in enumerate(cu_files):
            rel = _relative(cu.resolve(), units)
            obj = tmp / f"cu{i}.o"
            cmd = [settings.cxx(), settings.CXX_STD, *flags, *[f"-I{d}" for d in top_dirs],
                   "-x", "c++", "-c", str(src_dir / rel), "-o", str(obj)]
            objects.append(obj)
            commands.append(cmd)
        for i, src in enumerate(extra_sources):
            obj = tmp / f"extra{i}.o"
            is_c = src.suffix == ".c"
            cmd = [settings.cc() if is_c else settings.cxx(), *([] if is_c else [settings.CXX_STD]), *flags,
                   "-c", str(src), "-o", str(obj)]
            objects.append(obj)
            commands.append(cmd)
        tus = {_relative(cu.resolve(), units) for cu in cu_files}
        for i, cmd in enumerate(commands):
            if i < len(cu_files):
                ok, out = _object(cache, cmd, _relative(cu_files[i].resolve(), units), units, tus, top_dirs)
            else:
                ok, out = _run(cmd)
            logs.append(out)
            if not ok:
                return _failed("".join(logs), commands)
        exe_tmp = tmp / "program"
        link = [settings.cxx(), *settings.COMMON_FLAGS, *link_flags, *map(str, objects), str(runtime_obj),
                "-o", str(exe_tmp), "-lm"]
        commands.append(link)
        ok, out = _run(link)
        logs.append(out)
        if not ok:
            return _failed("".join(logs), commands)
        build_dir.mkdir(exist_ok=True)
        seal(exe_tmp, cached_exe)
        os.replace(exe_tmp, cached_exe)
    _install(cached_exe, out_exe)
    return BuildResult(True, out_exe, "".join(logs), "\n".join(" ".join(c) for c in commands))


def check_compiles(cu_source: str, filename: str = "candidate.cu") -> BuildResult:
    """Compile one `.cu` text as the emu reads it, without linking (g++ -fsyntax-only): a quick
    check that a generated file is a valid program (no redeclaration, no unknown name).  ok=False
    with the log (lines named after `filename`) for a bad program; `unsupported` set where the emu
    does not model something, which says nothing about the program's validity."""
    try:
        text = rewrite_cuda(cu_source, filename)
    except EmuUnsupported as e:
        return BuildResult(False, None, str(e), "rewrite_cuda", unsupported=e)
    with tempfile.TemporaryDirectory(prefix="t2c-compiles-") as tmp:
        src = Path(tmp) / "candidate.cc"
        src.write_text(text)
        cmd = [settings.cxx(), settings.CXX_STD, *_flags(settings.OPT_FLAGS, (), ()),
               "-fsyntax-only", "-x", "c++", str(src)]
        ok, log = _run(cmd)
    return BuildResult(True, None, log, " ".join(cmd)) if ok else _failed(log, [cmd])


# ---- sources ------------------------------------------------------------------------

def _rewrite_all(cu_files: list[Path]) -> dict[str, tuple[str, Path]]:
    """Rewritten text of every .cu and every local header they include, by path relative
    to a common root (so that `#include "x.cuh"` finds the rewritten header)."""
    found: dict[Path, str] = {}
    shown = {p.resolve(): str(p) for p in cu_files}
    queue = [p.resolve() for p in cu_files]
    while queue:
        path = queue.pop()
        if path in found:
            continue
        source = path.read_text(errors="replace")
        found[path] = rewrite_cuda(source, shown.get(path, str(path)))
        queue += _local_includes(source, path.parent)
    root = Path(os.path.commonpath([str(p.parent) for p in found]))
    return {str(p.relative_to(root)): (text, p) for p, text in found.items()}


def _local_includes(source: str, directory: Path) -> list[Path]:
    out = []
    for n in walk(parse(source.encode()).root_node):
        if n.type == "preproc_include":
            path = n.child_by_field_name("path")
            if path is not None and path.type == "string_literal":
                candidate = (directory / path.text.decode().strip('"')).resolve()
                if candidate.is_file():
                    out.append(candidate)
    return out


def _relative(path: Path, units: dict[str, tuple[str, Path]]) -> str:
    return next(rel for rel, (_, p) in units.items() if p == path)


# ---- compiling ----------------------------------------------------------------------

def _flags(program_flags, include_dirs, defines) -> list[str]:
    flags = [*settings.COMMON_FLAGS, *program_flags, f"-I{settings.INCLUDE_DIR}"]
    flags += [f"-I{d}" for d in include_dirs]
    flags += [d if d.startswith("-D") else f"-D{d}" for d in defines]
    return flags


@lru_cache(maxsize=None)
def _compiler_version(compiler: str) -> str:
    try:
        return run_process([compiler, "--version"], timeout=QUERY_TIMEOUT, env=clean_env()).stdout
    except OSError:
        return compiler


def _headers_key(flags) -> str:
    """What the runtime's own build depends on: the compiler, the flags, every header it ships."""
    headers = sorted(settings.INCLUDE_DIR.rglob("*"))
    return _digest([_compiler_version(settings.cxx()), *flags] + [p.read_bytes() for p in headers if p.is_file()])


def _runtime_object(cache: Path, runtime_flags) -> tuple[Path | None, str, str]:
    flags = [*settings.COMMON_FLAGS, *runtime_flags]
    obj = cache / f"runtime-{_headers_key(flags)}.o"
    cmd = [settings.cxx(), settings.CXX_STD, *flags, "-c", str(settings.RUNTIME_SOURCE)]
    if intact(obj):
        return obj, "", " ".join(cmd)
    fd, tmp = tempfile.mkstemp(dir=cache, prefix="tmp-runtime-", suffix=".o")
    os.close(fd)
    ok, log = _run(cmd + ["-o", tmp])
    if not ok:
        os.unlink(tmp)
        return None, log, " ".join(cmd)
    seal(Path(tmp), obj)
    os.replace(tmp, obj)
    return obj, log, " ".join(cmd)


def _with_header_precompiled(cache: Path, flags: list[str]) -> list[str]:
    """`flags` searching first a folder holding t2c_emu.h precompiled with exactly these flags
    (g++ takes `t2c_emu.h.gch` there in place of the header every translation unit includes
    first: parsing it is half of compiling a candidate).  Made once per flag set, keyed like the
    runtime object; g++ falls back to the header itself where it cannot use it."""
    folder = cache / f"pch-{_headers_key(flags)}"
    pch = folder / "t2c_emu.h.gch"
    if not intact(pch):
        folder.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder, prefix="tmp-") as tmp:     # one per builder
            wrapper, part = Path(tmp) / "pch.h", Path(tmp) / "pch.gch"
            wrapper.write_text('#include "t2c_emu.h"\n')
            ok, _ = _run([settings.cxx(), settings.CXX_STD, *flags, "-x", "c++-header", str(wrapper),
                          "-o", str(part)])
            if not ok:
                return flags                  # compiled the plain way, as before
            seal(part, pch)
            os.replace(part, pch)
    # a later `#include "t2c_emu.h"` (a local header's) cannot take the PCH again: it reads this
    forward = folder / "t2c_emu.h"
    if not forward.exists():
        part = folder / f"tmp-{os.getpid()}-{threading.get_ident()}.h"
        part.write_text('#include_next "t2c_emu.h"\n')
        os.replace(part, forward)
    at = flags.index(f"-I{settings.INCLUDE_DIR}")
    return [*flags[:at], f"-I{folder}", *flags[at:]]


def _object(cache: Path, cmd: list[str], rel: str, units: dict, tus: set, top_dirs) -> tuple[bool, str]:
    """Compile one translation unit (`cmd` ends in `-o OBJ`), through a cache of objects keyed by
    the compiler, the flags, its text and every text it can include: the headers among `units`,
    another unit it names, files beside the sources it includes with <...>.  A candidate's
    variants then share their driver's object, whose `#line` paths name the build it was made
    in (the sources' folder is one per build).  A cached object has no warnings to show."""
    text = units[rel][0]
    here = lambda t: re.sub("|".join(map(re.escape, top_dirs)), "<dir>", t) if top_dirs else t   # #line paths
    seen = [f"{r}\0{here(t)}" for r, (t, _) in sorted(units.items())
            if r == rel or r not in tus or Path(r).name in text]
    angled = [(Path(d) / n).read_bytes() for n in re.findall(r"#\s*include\s*<([^>]+)>", text)
              for d in top_dirs if (Path(d) / n).is_file()]
    flags = [a for a in cmd[:-3] if not (a.startswith("-I") and a[2:] in top_dirs)]   # paths of this build's own
    key = _digest([_compiler_version(cmd[0]), *flags, rel, *seen, *angled])
    cached, out = cache / f"obj-{key}.o", Path(cmd[-1])
    if intact(cached):
        shutil.copyfile(cached, out)
        return True, ""
    ok, log = _run(cmd)
    if ok:
        part = cache / f"tmp-obj-{key}-{os.getpid()}.o"
        shutil.copyfile(out, part)
        seal(part, cached)
        os.replace(part, cached)
    return ok, log


def _run(cmd: list[str]) -> tuple[bool, str]:
    try:
        p = run_process(cmd, timeout=COMPILE_TIMEOUT, env=clean_env())
    except OSError as e:
        return False, f"cannot run {cmd[0]}: {e}\n"
    if p.timed_out:
        return False, f"{p.stdout}{p.stderr}{cmd[0]} timed out after {COMPILE_TIMEOUT:.0f} s (stopped)\n"
    return p.ok, p.stdout + p.stderr


_UNSUPPORTED_ERROR = re.compile(r'^(.*?):(\d+):\d+: error: #error "t2c-emu unsupported: (.*)"', re.M)


def _failed(log: str, commands) -> BuildResult:
    """A failed compile; an #error from one of our library stand-in headers means 'unsupported'."""
    command = "\n".join(" ".join(c) for c in commands)
    m = _UNSUPPORTED_ERROR.search(log)
    if m:
        # The #error sits in the stand-in header; the include that pulled it in is the site.
        site = re.search(r"^In file included from (.*?):(\d+)", log, re.M)
        file, line = (site.group(1), int(site.group(2))) if site else (m.group(1), int(m.group(2)))
        return BuildResult(False, None, log, command, unsupported=EmuUnsupported(m.group(3), file, line))
    return BuildResult(False, None, log, command)


def first_error(log: str) -> str:
    """The first `file:line:col: error: ...` line of a compiler log (or its first line)."""
    for line in log.splitlines():
        if ": error: " in line or ": fatal error: " in line:
            return line.strip()
    return next((l.strip() for l in log.splitlines() if l.strip()), "build failed")


def _digest(parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _install(src: Path, dst: Path) -> None:
    """The sealed program at `dst`: a hard link where the file system allows (no file open for
    writing that a child forked meanwhile could hold: ETXTBSY at its exec), else a copy."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists() or dst.is_symlink():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
