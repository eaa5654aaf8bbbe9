// Covers: cudaMallocPitch, cudaMemcpy2D host->device and device->host with a
// pitch different from the row width, cudaMemset2D, and a kernel addressing
// rows through the byte pitch (char* arithmetic). The pitch value itself is
// device-specific and never printed (only checked to be >= the row width).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                         \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__,      \
              __LINE__, cudaGetErrorString(err_));                          \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

__global__ void row_ops(float* m, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float* row = (float*)((char*)m + y * pitch);
  row[x] = row[x] * 2.0f + (float)(y - x);
}

int main() {
  const int w = 37, h = 23;
  float* host = (float*)malloc(w * h * sizeof(float));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) host[y * w + x] = (float)((x * 7 + y * 11) % 50);
  float* d;
  size_t pitch = 0;
  CHECK(cudaMallocPitch((void**)&d, &pitch, w * sizeof(float), h));
  printf("pitch >= row bytes: %s\n", pitch >= w * sizeof(float) ? "yes" : "no");
  CHECK(cudaMemset2D(d, pitch, 0, w * sizeof(float), h));
  CHECK(cudaMemcpy2D(d, pitch, host, w * sizeof(float), w * sizeof(float), h,
                     cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  row_ops<<<grid, block>>>(d, pitch, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  // copy back only a 10-column window starting at column 5, into a tight buffer
  float win[10 * 23];
  CHECK(cudaMemcpy2D(win, 10 * sizeof(float), d + 5, pitch, 10 * sizeof(float), h,
                     cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2D(host, w * sizeof(float), d, pitch, w * sizeof(float), h,
                     cudaMemcpyDeviceToHost));
  double s = 0.0, sw = 0.0;
  for (int i = 0; i < w * h; ++i) s += host[i] * (i % 3 + 1);
  for (int i = 0; i < 10 * h; ++i) sw += win[i];
  printf("m[0][0] %.1f m[22][36] %.1f m[10][20] %.1f\n", host[0], host[22 * w + 36],
         host[10 * w + 20]);
  printf("weighted sum %.1f window sum %.1f window[3][4] %.1f\n", s, sw, win[3 * 10 + 4]);
  CHECK(cudaFree(d));
  free(host);
  return 0;
}
