"""2-d dynamic programs in tiles: a launch per diagonal of tiles, not per diagonal of cells
(poly/wavetiles.py).

needleman_wunsch ran as a host loop with one launch per anti-diagonal of cells (2n launches).
A band whose dependences never point to a smaller index runs in T x T tiles: a host loop over
the diagonals of tiles, a block per tile, the tile's cells by diagonals with barriers between.
Read from the plan's record, accepted by the emu ladder (SMALL: several tiles and partial edge
tiles), for kernels written here whose sizes are not multiples of T, and refused where a
dependence points backwards or the band is not a rectangle: those keep their form, correct."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.wavetiles import TileWave
from t2c.verify.ladder import ladder

NW = ROOT / "corpora" / "loops" / "rodinia" / "needleman_wunsch.c"


def _tiles(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return [(l.tiles.rows, l.tiles.cols, l.tiles.size) for l in plan.launches if isinstance(l.tiles, TileWave)]


def _accepted_small(k, text):
    card = ladder(k, text, backend="emu", dataset="SMALL", seed=3)
    assert card.accepted, card.summary()


def test_needleman_wunsch_runs_a_launch_per_diagonal_of_tiles():
    k = read_c(NW)
    assert _tiles(k) == [(("i", "1", "n - 1"), ("j", "1", "n - 1"), 32)]
    text = generate(k)
    assert "host loop tile_wave: a tiled wavefront" in text and "Tiles: the dependences of the (i, j) band" in text
    device = text.split("_device(")[1]
    assert "for (tile_wave = 0; tile_wave <= " in device and "wave =" not in device.replace("tile_wave =", "")
    assert "__syncthreads();" in text.split("_tiles_score(")[1].split("_device(")[0]
    accepted_on_emu(k, text)
    _accepted_small(k, text)                 # n = 200: 7 x 7 tiles, the last row and column partial


def test_the_tile_is_an_option_and_zero_keeps_a_launch_per_diagonal():
    k = read_c(NW)
    assert _tiles(k, DEFAULT.replace({"wavefront.tile": 16}))[0][2] == 16
    text = generate(k, DEFAULT.replace({"wavefront.tile": 16}))
    assert "__launch_bounds__(16)" in text
    _accepted_small(k, text)
    plain = generate(k, DEFAULT.replace({"wavefront.tile": None}))
    assert "tile_wave" not in plain and "host loop wave: a wavefront" in plain


LCS = """/* t2c: size n MINI=37 SMALL=70
 * t2c: size m MINI=45 SMALL=101
 * t2c: domain x integers(0, 3)
 * t2c: domain y integers(0, 3)
 */
void lcs(int n, int m, const int x[n], const int y[m], int L[n + 1][m + 1])
{
  for (int i = 0; i <= n; i++)
    L[i][0] = 0;
  for (int j = 0; j <= m; j++)
    L[0][j] = 0;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++) {
      if (x[i - 1] == y[j - 1])
        L[i][j] = L[i - 1][j - 1] + 1;
      else
        L[i][j] = L[i - 1][j] > L[i][j - 1] ? L[i - 1][j] : L[i][j - 1];
    }
}
"""

EDIT = """/* t2c: size n MINI=37 SMALL=70
 * t2c: domain a integers(0, 3)
 * t2c: domain b integers(0, 3)
 */
void edit_distance(int n, const int a[n], const int b[n], int d[n + 1][n + 1])
{
  for (int i = 0; i <= n; i++) {
    d[i][0] = i;
    d[0][i] = i;
  }
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      d[i][j] = best;
    }
}
"""


def test_lcs_of_sizes_not_a_multiple_of_the_tile(tmp_path):
    """Two sizes, neither a multiple of 32: a rectangle of tiles, partial at both far edges."""
    k = c_kernel(tmp_path, LCS, "lcs")
    assert _tiles(k) == [(("i", "1", "n"), ("j", "1", "m"), 32)]
    text = generate(k)
    accepted_on_emu(k, text)
    _accepted_small(k, text)


def test_a_band_with_scalars_private_to_its_cells(tmp_path):
    """Edit distance's cost and best live in one cell: the band ran in one thread (a wavefront
    cannot keep a cell's scalars in a register of a thread per diagonal); in tiles each cell is
    one thread's, its scalars a register."""
    k = c_kernel(tmp_path, EDIT, "edit_distance")
    assert _tiles(k) == [(("i", "1", "n"), ("j", "1", "n"), 32)]
    text = generate(k)
    assert "nothing here is parallel" not in text
    accepted_on_emu(k, text)
    _accepted_small(k, text)


@pytest.mark.parametrize("cell, bound, skewed", [
    ("a[i][j] = a[i - 1][j + 1] + a[i][j - 1];", "j < n - 1", True),     # a distance (1, -1): skewed tiles'
    ("a[i][j] = a[i - 1][j - 1] + a[i][j - 1];", "j <= i", False),       # a triangle
])
def test_refused_where_a_dependence_points_back_or_the_band_is_no_rectangle(tmp_path, cell, bound, skewed):
    src = f"""/* t2c: size n MINI=20 SMALL=70 */
void k(int n, double a[n][n])
{{
  for (int i = 1; i < n; i++)
    for (int j = 1; {bound}; j++)
      {cell}
}}
"""
    k = c_kernel(tmp_path, src)
    assert _tiles(k) == []
    text = generate(k)
    assert ("tile_wave" in text) == skewed == ("Skewed tiles" in text)
    accepted_on_emu(k, text)
