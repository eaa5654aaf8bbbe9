import re, sys
src = open(sys.argv[1]).read(); wide = sys.argv[3] == "wide"
src = src.replace("[32][68]", "[64][36]").replace("poly_shared + 4352", "poly_shared + 4608").replace("69632", "73728")
src = re.sub(r"poly_stage(\d)\[poly_b\]\[(poly_kk[^\]]*)\]\[(poly_w[^\]]*)\]", r"poly_stage\1[poly_b][\3][\2]", src)
def copy(m):
    st, base = m[1], m[2]
    if not wide:
        return (f"for (int poly_e = poly_t; poly_e < 2048; poly_e += 256) {{\n const int poly_g = {base} + poly_e / 32, poly_k = poly_k1 + poly_e % 32;\n"
                f" const bool poly_in = poly_g >= 0 && poly_g <= n - 1 && poly_k < m;\n"
                f" __pipeline_memcpy_async(&{st}[poly_next][poly_e / 32][poly_e % 32], &A[(poly_g * m) + poly_k], 8, poly_in ? 0 : 8);")
    return (f"for (int poly_e = poly_t; poly_e < 1024; poly_e += 256) {{\n const int poly_g = {base} + poly_e / 16, poly_k = poly_k1 + poly_e % 16 * 2;\n"
            f" const bool poly_in = poly_g >= 0 && poly_g <= n - 1 && poly_k < m, poly_in2 = poly_g >= 0 && poly_g <= n - 1 && poly_k + 1 < m;\n"
            f" __pipeline_memcpy_async(&{st}[poly_next][poly_e / 16][poly_e % 16 * 2], &A[(poly_g * m) + poly_k], 16, poly_in ? (poly_in2 ? 0 : 8) : 16);")
src = re.sub(r"for \(int poly_e = poly_t; poly_e < 2048; poly_e \+= 256\) \{\s*const int poly_g = (\w+) \+ poly_e / 32, poly_k = poly_k1 \+ poly_e % 32;\s*const bool poly_in = [^;]*;\s*__pipeline_memcpy_async\(&(poly_stage\d)[^;]*;",
             lambda m: copy((None, m[2], m[1])), src)
src = src.replace("extern __shared__ double", "extern __shared__ __align__(16) double")
open(sys.argv[2], "w").write(src)
