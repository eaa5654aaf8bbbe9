/* A domain kind t2c does not know; the annotation itself reads fine.
 * t2c: domain x gaussian
 */
void copy(int n, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = x[i];
}
