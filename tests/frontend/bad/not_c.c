/* Not C: no function definition can be found. */
kernel matmul(A, B) -> C {
  C = A @ B
