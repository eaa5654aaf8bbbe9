"""The analysis's `line N` is the line of the user's file (a C kernel) or of the spec's
statement (a spec), not of t2c's reprint of the reference: the reasons in a candidate's header
and in `t2c gen --explain` point where the user can look."""
from __future__ import annotations

import re

import pytest

from t2ctest import ROOT
from t2c.analysis import NotAffine, build_program
from t2c.frontends import read_kernel
from t2c.frontends.c import read_c
from t2c.generators.poly import explanation, generate

WHILE = """\
/* scale in place with a while loop (stepped first: not a counted loop)
 * t2c: size n MINI=40 SMALL=4000
 * t2c: array v[n] inout
 */
void scale_while(int n, double s, double *v)
{
    int i = 0;
    while (i < n) {
        i++;
        v[i - 1] *= s;
    }
}
"""

SEARCH = """\
/* first position whose key equals target, or n if absent
 * t2c: size n MINI=40 SMALL=4000
 * t2c: array keys[n] in
 * t2c: array pos[1] out
 */
void find_key(unsigned n, const int *keys, int target, unsigned *pos)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        if (keys[i] == target)
            break;
    }
    *pos = i;
}
"""


def _lines(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\bline (\d+)", text)]


@pytest.mark.parametrize("text, line, words", [
    (WHILE, 8, "while (i < n)"),
    (SEARCH, 10, "if (keys[i] == target)"),
], ids=["while", "early_exit"])
def test_not_affine_names_the_files_line(tmp_path, text, line, words):
    """Both once named the reference's line (4 and 6: a comment line of the file)."""
    path = tmp_path / "kernel.c"
    path.write_text(text)
    k = read_c(path)
    with pytest.raises(NotAffine) as info:
        build_program(k)
    assert _lines(str(info.value)) == [line]
    assert words in text.splitlines()[line - 1]
    header = [h for h in generate(k).splitlines() if h.startswith("//") and "not affine" in h]
    assert header and _lines(header[0]) == [line], header
    listing = explanation(k).split("\n\n", 1)[1]            # numbered by the file's lines
    assert f"{line:4d}  " in listing and words.split("(")[0] in listing.split(f"{line:4d}  ")[1].splitlines()[0]


@pytest.mark.parametrize("name, words", [
    ("gpu/bitonic_sort.c", "size *= 2"),
    ("livermore/banded_solve.c", "x[i] = s"),
])
def test_corpus_headers_name_the_files_lines(name, words):
    """A loop step the model refuses, a carried dependence's statement: the header's lines."""
    path = ROOT / "corpora/loops" / name
    header = "\n".join(h for h in generate(read_c(path)).splitlines() if h.startswith("//"))
    source = path.read_text().splitlines()
    lines = _lines(header)
    assert lines and any(words in source[n - 1] for n in lines), (lines, header)


def test_spec_lines_are_its_statements():
    """A spec has no C file: its statements' lines are the spec's (the while loop's body too)."""
    path = ROOT / "corpora/text2cuda/collatz_steps.md"
    k = read_kernel(path)
    source = path.read_text().splitlines()
    program = build_program(k)
    targets = {st.line: st.text for st in program.statements}
    assert targets
    for line, text in targets.items():
        first = re.match(r"\w+", text.strip()).group()      # the target, or `while`
        assert re.search(rf"\b{first}\b", source[line - 1]), (line, text, source[line - 1])
