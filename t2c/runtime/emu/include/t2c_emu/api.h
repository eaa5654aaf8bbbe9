// t2c emu: the CUDA runtime API subset a standalone program calls from host code.
//
// Calls that can go wrong in a way worth reporting (allocation, copies, sets, frees) take
// a hidden first argument, the call site, added by a macro of the same name; the runtime
// then names the .cu line in its finding.  Streams are synchronous; event times measure
// the CPU and are flagged as not meaningful.
#pragma once
#include <stddef.h>
#include "types.h"

namespace t2c_emu {
struct Site { const char* file; int line; };
cudaError_t copy_to_symbol(Site, void* symbol, size_t symbol_size, const void* src, size_t count,
                           size_t offset, cudaMemcpyKind kind);
cudaError_t copy_from_symbol(Site, void* dst, const void* symbol, size_t symbol_size, size_t count,
                             size_t offset, cudaMemcpyKind kind);
void set_max_dynamic_shared(int bytes);
// The occupancy model behind the occupancy queries and the cooperative launch's limit: the
// blocks of `block_threads` threads and `dynamic_shared` bytes one multiprocessor holds at
// once, from its threads, block slots and shared memory (registers and static __shared__
// memory are not known to the emulator and not counted).
int blocks_per_multiprocessor(int block_threads, size_t dynamic_shared);
int multiprocessor_count();
}  // namespace t2c_emu

// ---- memory ----
cudaError_t cudaMalloc(t2c_emu::Site, void** p, size_t size);
template <class T> cudaError_t cudaMalloc(t2c_emu::Site s, T** p, size_t size) { return cudaMalloc(s, (void**)p, size); }
cudaError_t cudaMallocManaged(t2c_emu::Site, void** p, size_t size, unsigned flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocManaged(t2c_emu::Site s, T** p, size_t size, unsigned flags = cudaMemAttachGlobal) {
    return cudaMallocManaged(s, (void**)p, size, flags); }
cudaError_t cudaMallocHost(t2c_emu::Site, void** p, size_t size);
template <class T> cudaError_t cudaMallocHost(t2c_emu::Site s, T** p, size_t size) { return cudaMallocHost(s, (void**)p, size); }
cudaError_t cudaHostAlloc(t2c_emu::Site, void** p, size_t size, unsigned flags);
template <class T> cudaError_t cudaHostAlloc(t2c_emu::Site s, T** p, size_t size, unsigned flags) {
    return cudaHostAlloc(s, (void**)p, size, flags); }
cudaError_t cudaMallocPitch(t2c_emu::Site, void** p, size_t* pitch, size_t width, size_t height);
template <class T> cudaError_t cudaMallocPitch(t2c_emu::Site s, T** p, size_t* pitch, size_t width, size_t height) {
    return cudaMallocPitch(s, (void**)p, pitch, width, height); }
cudaError_t cudaFree(t2c_emu::Site, void* p);
cudaError_t cudaFreeHost(t2c_emu::Site, void* p);
cudaError_t cudaHostRegister(void* p, size_t size, unsigned flags);
cudaError_t cudaHostUnregister(void* p);
cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned flags);
cudaError_t cudaMemcpy(t2c_emu::Site, void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(t2c_emu::Site, void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(t2c_emu::Site, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemset(t2c_emu::Site, void* p, int value, size_t count);
cudaError_t cudaMemsetAsync(t2c_emu::Site, void* p, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemset2D(t2c_emu::Site, void* p, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemcpy2DAsync(t2c_emu::Site, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMallocAsync(t2c_emu::Site, void** p, size_t size, cudaStream_t stream);
template <class T> cudaError_t cudaMallocAsync(t2c_emu::Site s, T** p, size_t size, cudaStream_t stream) {
    return cudaMallocAsync(s, (void**)p, size, stream); }
cudaError_t cudaFreeAsync(t2c_emu::Site, void* p, cudaStream_t stream);
template <class T> cudaError_t cudaMemcpyToSymbol(t2c_emu::Site s, const T& symbol, const void* src, size_t count,
        size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return t2c_emu::copy_to_symbol(s, (void*)&symbol, sizeof(T), src, count, offset, kind); }
template <class T> cudaError_t cudaMemcpyToSymbolAsync(t2c_emu::Site s, const T& symbol, const void* src, size_t count,
        size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
    return t2c_emu::copy_to_symbol(s, (void*)&symbol, sizeof(T), src, count, offset, kind); }
template <class T> cudaError_t cudaMemcpyFromSymbol(t2c_emu::Site s, void* dst, const T& symbol, size_t count,
        size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return t2c_emu::copy_from_symbol(s, dst, (const void*)&symbol, sizeof(T), count, offset, kind); }
template <class T> cudaError_t cudaMemcpyFromSymbolAsync(t2c_emu::Site s, void* dst, const T& symbol, size_t count,
        size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0) {
    return t2c_emu::copy_from_symbol(s, dst, (const void*)&symbol, sizeof(T), count, offset, kind); }
template <class T> cudaError_t cudaGetSymbolAddress(void** p, const T& symbol) { *p = (void*)&symbol; return cudaSuccess; }
template <class T> cudaError_t cudaGetSymbolSize(size_t* n, const T&) { *n = sizeof(T); return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p);
static inline cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t = 0) { return cudaSuccess; }
static inline cudaError_t cudaMemAdvise(const void*, size_t, int, int) { return cudaSuccess; }

// ---- errors and devices ----
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t e);
const char* cudaGetErrorName(cudaError_t e);
cudaError_t cudaDeviceSynchronize();
static inline cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }
cudaError_t cudaDeviceReset();
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDevice(int* d);
cudaError_t cudaGetDeviceCount(int* n);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d);
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d);
static inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int d) {
    *pool = (cudaMemPool_t)0x1; return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
static inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void*) { return cudaSuccess; }
static inline cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
static inline cudaError_t cudaDriverGetVersion(int* v) { *v = 13000; return cudaSuccess; }
static inline cudaError_t cudaRuntimeGetVersion(int* v) { *v = 13000; return cudaSuccess; }
static inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop() { return cudaSuccess; }
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2 };
static inline cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return cudaSuccess; }
static inline cudaError_t cudaDeviceGetLimit(size_t* v, cudaLimit) { *v = 1 << 20; return cudaSuccess; }

// ---- kernels as objects: attributes and occupancy queries answer plausibly ----
template <class F> cudaError_t cudaFuncSetAttribute(F*, cudaFuncAttribute a, int v) {
    if (a == cudaFuncAttributeMaxDynamicSharedMemorySize) t2c_emu::set_max_dynamic_shared(v);
    return cudaSuccess; }
template <class F> cudaError_t cudaFuncSetCacheConfig(F*, cudaFuncCache) { return cudaSuccess; }
template <class F> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F*) {
    *a = cudaFuncAttributes{0, 0, 0, 1024, 32, 90, 90, 0, 49152, 0}; return cudaSuccess; }
template <class F> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F*, int block, size_t smem) {
    *n = t2c_emu::blocks_per_multiprocessor(block, smem); return cudaSuccess; }
template <class F> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, F*, int block, size_t smem,
                                                                                      unsigned) {
    *n = t2c_emu::blocks_per_multiprocessor(block, smem); return cudaSuccess; }
template <class F> cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block, F*, size_t smem = 0, int limit = 0) {
    *block = (limit > 0 && limit < 1024) ? limit : 1024;
    *min_grid = t2c_emu::multiprocessor_count() * t2c_emu::blocks_per_multiprocessor(*block, smem);
    return cudaSuccess; }

// ---- streams and events (everything is synchronous) ----
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t s);
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { return cudaSuccess; }
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int* lo, int* hi) { *lo = 0; *hi = -5; return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t e);

// The runtime itself defines these functions, so it compiles without the macros.
#ifndef T2C_EMU_RUNTIME
#define T2C_SITE ::t2c_emu::Site{__FILE__, __LINE__}
#define cudaMalloc(...) cudaMalloc(T2C_SITE, __VA_ARGS__)
#define cudaMallocManaged(...) cudaMallocManaged(T2C_SITE, __VA_ARGS__)
#define cudaMallocHost(...) cudaMallocHost(T2C_SITE, __VA_ARGS__)
#define cudaHostAlloc(...) cudaHostAlloc(T2C_SITE, __VA_ARGS__)
#define cudaMallocPitch(...) cudaMallocPitch(T2C_SITE, __VA_ARGS__)
#define cudaFree(...) cudaFree(T2C_SITE, __VA_ARGS__)
#define cudaFreeHost(...) cudaFreeHost(T2C_SITE, __VA_ARGS__)
#define cudaMemcpy(...) cudaMemcpy(T2C_SITE, __VA_ARGS__)
#define cudaMemcpyAsync(...) cudaMemcpyAsync(T2C_SITE, __VA_ARGS__)
#define cudaMemcpy2D(...) cudaMemcpy2D(T2C_SITE, __VA_ARGS__)
#define cudaMemset(...) cudaMemset(T2C_SITE, __VA_ARGS__)
#define cudaMemsetAsync(...) cudaMemsetAsync(T2C_SITE, __VA_ARGS__)
#define cudaMemset2D(...) cudaMemset2D(T2C_SITE, __VA_ARGS__)
#define cudaMemcpy2DAsync(...) cudaMemcpy2DAsync(T2C_SITE, __VA_ARGS__)
#define cudaMallocAsync(...) cudaMallocAsync(T2C_SITE, __VA_ARGS__)
#define cudaFreeAsync(...) cudaFreeAsync(T2C_SITE, __VA_ARGS__)
#define cudaMemcpyToSymbol(...) cudaMemcpyToSymbol(T2C_SITE, __VA_ARGS__)
#define cudaMemcpyToSymbolAsync(...) cudaMemcpyToSymbolAsync(T2C_SITE, __VA_ARGS__)
#define cudaMemcpyFromSymbol(...) cudaMemcpyFromSymbol(T2C_SITE, __VA_ARGS__)
#define cudaMemcpyFromSymbolAsync(...) cudaMemcpyFromSymbolAsync(T2C_SITE, __VA_ARGS__)
#endif
