typedef struct { float x, y, z; int tag; } vec3;

void vec3_scale(int n, float s, const vec3 *in, vec3 *out)
{
  for (int i = 0; i < n; i++) {
    out[i].x = s * in[i].x;
    out[i].y = s * in[i].y;
    out[i].z = s * in[i].z;
  }
}
