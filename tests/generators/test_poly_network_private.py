"""Exchange nests whose points fold into host-declared scalars (network.py, `Exchange.private`),
and the one-thread candidate's local arrays (cuda.sequential_candidate).

Class: a network's nest whose innermost body writes a function-level scalar before it reads it
(a compiled reduction's accumulator `acc = 0; for (c ...) acc += ...; X[i][j] = acc;`, an inner
loop's counter): each thread keeps its own copy, so the nest is still a launch of a thread per
point. knn.md (a distance matrix, then the first k of a stable argsort) is such a network: it
ran in one thread, and that candidate did not even compile (a 2-d local array declared as a
variable-length array, indexed flat). A scalar the host reads after the nest, or one a point
reads before writing it, keeps the nest out (one thread, correct)."""
from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.cuda import sequential_candidate
from t2c.generators.poly.network import network_of
from t2c.verify.ladder import ladder

KNN = ROOT / "corpora" / "text2cuda" / "knn.md"


def test_knn_distances_are_a_nest_with_each_threads_own_accumulator():
    k = read_kernel(KNN)
    net = network_of(k)
    assert net is not None
    fill = net.loops[0]
    assert fill.vars == ("i", "j") and fill.private == (("acc_r1", "int"), ("c", "int"))
    assert not {v for v, _ in fill.host} & {"acc_r1", "c"}            # declared in the kernel, not passed
    assert [s.perm for s in net.selects] == ["order"] and cprint_first(net) == "k"
    text = generate(k)
    assert "runs in one GPU thread" not in text
    assert "knn_exchange0: loops i, j, a thread per (i, j); each writes only its own cells (acc_r1, c: each " \
           "thread's own)." in text
    kernel = text[text.index("__global__ void __launch_bounds__(256) knn_exchange0("):]
    assert "    int acc_r1;   /* this thread's own */\n    int c;   /* this thread's own */\n    acc_r1 = 0;" in kernel
    assert "int acc_r1, " not in kernel.splitlines()[0]                   # no host value is passed in
    for dataset in ("MINI", "SMALL"):
        card = ladder(k, text, backend="emu", dataset=dataset, seed=4)
        assert card.accepted, card.summary()


def cprint_first(net) -> str:
    from t2c.ir.csyntax import cprint
    return cprint(net.selects[0].first)


SUMS = """
/* t2c: size n MINI=24
 * t2c: size d MINI=3
 * t2c: array x[n][d] in
 * t2c: array y[n] out
 * t2c: array s[1] out */
void rows(int n, int d, float *x, float *y, float *s)
{
  int i;
  int c;
  int h;
  float acc = 0.0f;
  float t[n];
  for (i = 0; i < n; i++) {
    acc = 0.0f;
    for (c = 0; c < d; c++)
      acc += x[i * d + c];
    y[i] = acc;
  }
  for (h = n / 2; h > 0; h /= 2) {
    for (i = 0; i < h; i++)
      t[i] = y[2 * i] + y[2 * i + 1];
    for (i = 0; i < h; i++)
      y[i] = t[i];
  }
  s[0] = LAST;
}
"""


def test_a_row_sum_into_a_host_scalar_is_a_thread_per_row(tmp_path):
    k = c_kernel(tmp_path, SUMS.replace("LAST", "y[0]"), "rows")
    net = network_of(k)
    assert net is not None and net.loops[0].private == (("acc", "float"), ("c", "int"))
    text = generate(k)
    assert "rows_exchange0<<<" in text and "    float acc;   /* this thread's own */" in text
    accepted_on_emu(k, text)


def test_a_scalar_the_host_reads_after_the_nest_or_a_point_reads_first_is_the_hosts(tmp_path):
    """`acc` read by the last statement (the last row's sum), or accumulated without a reset (a
    running sum across the rows): either way a value crosses points, and the nest is no exchange
    launch (the candidate is the model's, or one thread: correct either way)."""
    after = c_kernel(tmp_path, SUMS.replace("LAST", "acc"), "rows")
    assert network_of(after) is None
    running = c_kernel(tmp_path, SUMS.replace("LAST", "y[0]").replace("    acc = 0.0f;\n", ""), "rows")
    assert network_of(running) is None
    text = generate(running)
    assert "rows_exchange" not in text
    accepted_on_emu(running, text)


def test_the_one_thread_candidate_keeps_local_arrays_in_device_memory():
    """knn as one thread: `d2` and `order` ([nq][m], sized by the call) are pool memory that the
    host points `poly_buf_*` at, indexed flat; no array is declared in the kernel."""
    k = read_kernel(KNN)
    text = sequential_candidate(k, "asked for")
    assert "__device__ int *poly_buf_d2;" in text and "__device__ int *poly_buf_order;" in text
    assert "poly_buf_d2[(i * m) + j] = acc_r1;" in text and "int d2[" not in text and "int order[" not in text
    assert "cudaMallocAsync((void **)&poly_local_d2, (size_t)(nq) * (size_t)(m) * sizeof(int) + 1, 0) : " in text
    assert text.index("cudaFreeAsync(poly_local_order, 0);") > text.index("knn_sequential<<<1, 1>>>")
    accepted_on_emu(k, text)


def test_a_local_array_of_literal_extents_stays_the_threads_own_declared_flat(tmp_path):
    k = c_kernel(tmp_path, """
/* t2c: size n MINI=6
 * t2c: array x[n] in
 * t2c: array y[n] out */
void table(int n, const double *x, double *y)
{
  double w[2][3];
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      w[a][b] = a + 0.5 * b;
  for (int i = 0; i < n; i++)
    y[i] = x[i] * w[i % 2][i % 3];
}
""", "table")
    text = sequential_candidate(k, "asked for")
    assert "double w[2 * 3];" in text and "poly_buf_w" not in text
    assert "w[(a * 3) + b] = a + (0.5 * b);" in text
    accepted_on_emu(k, text)
