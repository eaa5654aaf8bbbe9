// Covers: 3-D grids and 3-D blocks (dim3 with z), blockIdx/threadIdx/blockDim/
// gridDim in x, y and z, bounds checks on a 3-D domain that does not fill the
// launch, a linear global thread id that must be unique, and a 3-D 7-point sum.
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

__global__ void fill3d(int* a, int* ids, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  int block_id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int in_block = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int gid = block_id * (blockDim.x * blockDim.y * blockDim.z) + in_block;
  atomicAdd(&ids[gid], 1);  // every launched thread marks its own id once
  if (x < nx && y < ny && z < nz) a[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
}

__global__ void sum7(const int* a, long long* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  int c = (z * ny + y) * nx + x;
  long long s = (long long)a[c] * 6 - a[c - 1] - a[c + 1] - a[c - nx] - a[c + nx] -
                a[c - nx * ny] + a[c + nx * ny];
  out[c] = s;
}

int main() {
  const int nx = 20, ny = 15, nz = 7;
  dim3 block(8, 4, 4);
  dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y,
            (nz + block.z - 1) / block.z);
  const int launched = grid.x * grid.y * grid.z * block.x * block.y * block.z;
  const int cells = nx * ny * nz;
  int *da, *dids;
  long long* dout;
  CHECK(cudaMalloc(&da, cells * sizeof(int)));
  CHECK(cudaMalloc(&dids, launched * sizeof(int)));
  CHECK(cudaMalloc(&dout, cells * sizeof(long long)));
  CHECK(cudaMemset(da, 0xFF, cells * sizeof(int)));
  CHECK(cudaMemset(dids, 0, launched * sizeof(int)));
  CHECK(cudaMemset(dout, 0, cells * sizeof(long long)));
  fill3d<<<grid, block>>>(da, dids, nx, ny, nz);
  CHECK(cudaGetLastError());
  sum7<<<grid, block>>>(da, dout, nx, ny, nz);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  int* a = (int*)malloc(cells * sizeof(int));
  int* ids = (int*)malloc(launched * sizeof(int));
  long long* o = (long long*)malloc(cells * sizeof(long long));
  CHECK(cudaMemcpy(a, da, cells * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ids, dids, launched * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o, dout, cells * sizeof(long long), cudaMemcpyDeviceToHost));
  long long sa = 0, so = 0;
  int once = 0, unset = 0;
  for (int i = 0; i < cells; ++i) {
    sa += a[i];
    so += o[i];
    if (a[i] == -1) ++unset;
  }
  for (int i = 0; i < launched; ++i) once += (ids[i] == 1);
  printf("grid %u %u %u block %u %u %u\n", grid.x, grid.y, grid.z, block.x, block.y, block.z);
  printf("launched %d ids-once %d\n", launched, once);
  printf("cells %d unset %d sum %lld a[6][14][19] %d\n", cells, unset, sa,
         a[(6 * ny + 14) * nx + 19]);
  printf("7-point sum %lld\n", so);
  CHECK(cudaFree(da));
  CHECK(cudaFree(dids));
  CHECK(cudaFree(dout));
  free(a);
  free(ids);
  free(o);
  return 0;
}
