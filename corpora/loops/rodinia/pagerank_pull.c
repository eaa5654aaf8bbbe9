/* class: gather — one PageRank step over a graph in CSR form (incoming edges): each vertex pulls
 * the ranks of its sources, divided by their out-degrees.
 * t2c: description next[v] = (1 - d) / nv + d * sum over e in start[v] .. start[v+1]-1 of rank[src[e]] / deg[src[e]]
 * t2c: size nv MINI=20 SMALL=2000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: size ne MINI=80 SMALL=16000 MEDIUM=800000 LARGE=8000000 EXTRALARGE=32000000
 * t2c: array start[nv + 1] in
 * t2c: array src[ne] in
 * t2c: array deg[nv] in
 * t2c: array rank[nv] in
 * t2c: array next[nv] out
 * t2c: domain start offsets(0, ne)
 * t2c: domain src integers(0, nv - 1)
 * t2c: domain deg integers(1, 20)
 * t2c: domain rank uniform(0, 1)
 * t2c: domain d uniform(0.8, 0.9)
 */
void pagerank_pull(int nv, int ne, double d, const int *start, const int *src, const int *deg, const double *rank,
                   double *next)
{
  for (int v = 0; v < nv; v++) {
    double s = 0.0;
    for (int e = start[v]; e < start[v + 1]; e++)
      s += rank[src[e]] / deg[src[e]];
    next[v] = (1.0 - d) / nv + d * s;
  }
}
