"""Generated code as nodes (t2c/ir/cgen.py): what the printer prints parses back to what was built,
and the CUDA nodes print as CUDA writes them."""
import pytest
from pycparser import c_ast, c_parser

from t2c.ir import cgen


def same(a, b) -> bool:
    """Two trees alike, node by node, whatever their coordinates (pycparser's round-trip test
    compares so)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, c_ast.Node):
        return all(same(getattr(a, s), getattr(b, s)) for s in a.__slots__ if s not in ("coord", "__weakref__"))
    return a == b


def parsed(text: str) -> c_ast.FuncDef:
    """The last definition of `text`, parsed by pycparser itself."""
    return c_parser.CParser().parse("typedef int size_t;\n" + text).ext[-1]


def built() -> c_ast.FuncDef:
    """A function from the builders: each statement kind the drivers use, nested."""
    return cgen.function(
        "int main(int argc, char **argv)",
        'const char *mode = argc > 1 ? argv[1] : "";',
        cgen.decl("size_t n_bytes", "(size_t)(n) * (size_t)(n + 1) * sizeof(double)"),
        cgen.decl("double *x", cgen.cast("double *", cgen.call("load", "dir", cgen.string('x "1"\n'), "n_bytes", 1))),
        cgen.decl("double s", cgen.deref(cgen.cast("double *", cgen.call("load", "dir", cgen.string("s"))))),
        cgen.decl("int t[4]"),
        cgen.if_("argc != 3 + counted", [cgen.call("fprintf", "stderr", cgen.string("usage\n")), "return 2;"]),
        cgen.for_("int i = 0", "i < n", "i++",
                  cgen.if_("i % 2", cgen.assign("x[i]", "-(-x[i])"), ["x[i] = x[i] - (s - 1);", "continue;"]),
                  cgen.if_("t[0] != n || t[1] != n && s > 0", "break;")),
        cgen.assign("s", cgen.ternary("mode", "s", 0), "+="),
        "switch (n ? n : -1) { case 0: s = 1; break; default: return 1; }",
        "while ((n & 1) == 0) n >>= 1;",
        "return 0;")


def test_built_statements_print_and_parse_back_alike():
    text = cgen.render(built())
    assert same(parsed(text), built()), text
    assert "  if (argc != 3 + counted) {\n    fprintf(stderr, \"usage\\n\");\n    return 2;\n  }\n" in text
    assert "  size_t n_bytes = (size_t)n * (size_t)(n + 1) * sizeof(double);\n" in text
    assert "      x[i] = -(-x[i]);\n    else {\n" in text


@pytest.mark.parametrize("expression", [
    "a - (b - c)", "a - b - c", "a * (b + c) / d % e", "-(-x) + - -y", "&*p", "(*p)++", "*p++", "!(a < b)",
    "(double)(a + b) * (size_t)c", "*(double *)load(d, 1)", "a ? b : c ? d : e", "(a ? b : c) ? d : e",
    "x = y = z + 1", "f((a, b), c)", "a & (b == c)", "(a && b) || c", "a || b && c", "(a << (b + 1)) | c",
    "sizeof(int) * sizeof x", "a[i + 1][j]", "s.f->g[0]", "(a = b) ? c : d", "-(unsigned)x", "--x - -1",
])
def test_expressions_keep_their_meaning_with_the_fewest_parentheses(expression):
    """Printed with only the parentheses C's precedence needs (plus gcc's -Wparentheses asks),
    each expression parses back to the tree it came from."""
    node = cgen.expr(expression)
    text = cgen.render(node)
    assert same(cgen.expr(text), node), text
    assert text.count("(") <= expression.count("(") + 2, text


def test_the_cuda_nodes_print_as_cuda_writes_them():
    params = cgen.function("void f(int n, const double *x, double *y)").decl.type.args
    body = cgen.block(cgen.SharedArray("double", "part", [cgen.expr(8), cgen.expr("32 + 1")], align=16),
                      cgen.SharedArray("float", "dyn", []),
                      "part[0][threadIdx.x] = x[threadIdx.x];",
                      cgen.call("__syncthreads"))
    kernel = cgen.Kernel("scale", params, body, c_ast.ExprList([cgen.expr(256), cgen.expr(2)]))
    assert cgen.render(kernel) == (
        "__global__ void __launch_bounds__(256, 2) scale(int n, const double *x, double *y)\n"
        "{\n"
        "  __shared__ __align__(16) double part[8][32 + 1];\n"
        "  extern __shared__ float dyn[];\n"
        "  part[0][threadIdx.x] = x[threadIdx.x];\n"
        "  __syncthreads();\n"
        "}\n")
    plain = cgen.Kernel("scale", params, cgen.block())
    assert cgen.render(plain) == "__global__ void scale(int n, const double *x, double *y)\n{\n}\n"
    args = c_ast.ExprList([cgen.expr("n"), cgen.expr("d_x")])
    grid, block = cgen.call("dim3", "(n + 255) / 256", 1), cgen.expr(256)
    assert cgen.render(cgen.Launch(c_ast.ID("scale"), grid, block, args)) == \
        "scale<<<dim3((n + 255) / 256, 1), 256>>>(n, d_x)"
    assert cgen.render(cgen.Launch(c_ast.ID("scale"), grid, block, args, shared=cgen.expr("bytes"))) == \
        "scale<<<dim3((n + 255) / 256, 1), 256, bytes>>>(n, d_x)"
    assert cgen.render(cgen.Launch(c_ast.ID("scale"), grid, block, None, stream=cgen.expr("s"))) == \
        "scale<<<dim3((n + 255) / 256, 1), 256, 0, s>>>()"
    launch = cgen.block(cgen.Launch(c_ast.ID("scale"), grid, block, args))
    assert cgen.render(launch) == "{\n  scale<<<dim3((n + 255) / 256, 1), 256>>>(n, d_x);\n}\n"


def test_a_program_keeps_its_verbatim_text_line_for_line():
    """Text that is no C statement (a prelude, `#include`s, a C++ declaration) is printed as it
    is, one item a line, the way the drivers' preludes were joined."""
    program = cgen.program("\n#include <cstdio>\n", '#include <cuda_fp16.h>', 'extern "C" void f(int n);', "",
                           cgen.function("int main(void)", cgen.Comment("nothing to do"), "return 0;"))
    assert cgen.render(program) == ('\n#include <cstdio>\n\n#include <cuda_fp16.h>\nextern "C" void f(int n);\n\n'
                                    "int main(void)\n{\n  /* nothing to do */\n  return 0;\n}\n")


def test_the_builders_refuse_what_is_not_c():
    with pytest.raises(ValueError, match="not C: 'x = ;'"):
        cgen.stmts("x = ;")
    with pytest.raises(ValueError, match="not C"):
        cgen.expr("a +")


def test_built_nodes_are_copies():
    """The builders parse a text once and hand out copies: changing one leaves the next alone."""
    first = cgen.decl("int x", 1)
    first.init = cgen.expr(2)
    assert cgen.render(cgen.block(cgen.decl("int x", 1))) == "{\n  int x = 1;\n}\n"


def test_threads_build_at_once():
    """The ladder builds drivers in threads: the one parser the builders share takes one text at a time."""
    from concurrent.futures import ThreadPoolExecutor

    def build(i: int) -> str:
        return cgen.render(cgen.block(f"t2c_init{i}(m, n, (void *)A, (void *)x{i}, (size_t)(n) * sizeof(double));"))
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(build, range(400)))
    assert texts[7] == "{\n  t2c_init7(m, n, (void *)A, (void *)x7, (size_t)n * sizeof(double));\n}\n"
