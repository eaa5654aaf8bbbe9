/* class: affine — distances from a query to every record (Rodinia nn's kind).
 * t2c: description dist[i] = Euclidean distance from (qx, qy) to record i
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=49000000 EXTRALARGE=196000000
 * t2c: array lat[n] in
 * t2c: array lng[n] in
 * t2c: array dist[n] out
 */
void nearest_neighbor(int n, double qx, double qy, const double *lat, const double *lng, double *dist)
{
  for (int i = 0; i < n; i++)
    dist[i] = sqrt((lat[i] - qx) * (lat[i] - qx) + (lng[i] - qy) * (lng[i] - qy));
}
