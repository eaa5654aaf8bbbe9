int main(void) {
  int a[10], i;
#pragma scop
  for (i = 0; i < 10; i++) a[i] = i;
#pragma endscop
  return a[3];
}
