/* The intent is not one t2c knows.
 * t2c: intent y sideways
 */
void copy(int n, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = x[i];
}
