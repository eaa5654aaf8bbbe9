// t2c emu: what the rewriter's output calls — kernel launches, per-block __shared__
// storage, and registration of __device__/__constant__ variables.
//
// A launch `k<<<g, b, smem, stream>>>(args)` becomes
//     ::t2c_emu::launch<FIBERS>(site, g, b, smem, stream, [&](auto&... a) { k(a...); }, args)
// The arguments are evaluated once, copied into a tuple, and every CUDA thread calls the
// kernel with its own by-value copy, as on a GPU.  FIBERS is false only when the rewriter
// proved the kernel (and everything it calls) free of barriers and warp operations; then
// the threads of a block run as a plain loop.
#pragma once
#include <stddef.h>
#include <tuple>
#include <type_traits>
#include <utility>
#include "types.h"

namespace t2c_emu {
struct LaunchSite { const char* file; int line; const char* kernel; };
typedef void (*ThreadBody)(void* ctx);

void launch_erased(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared,
                   cudaStream_t stream, bool fibers, ThreadBody body, void* ctx);
// Reports a finding (and exits) when p is neither null nor inside device-visible memory.
void check_kernel_pointer(const LaunchSite& site, int index, const void* p);

template <class T> inline void check_argument(const LaunchSite& site, int index, const T& v) {
    if constexpr (std::is_pointer<T>::value && !std::is_function<std::remove_pointer_t<T>>::value)
        check_kernel_pointer(site, index, (const void*)v);
}
template <class Tuple, size_t... I>
void check_pointers(const LaunchSite& site, const Tuple& args, std::index_sequence<I...>) {
    (void)site; (void)args;
    (check_argument(site, (int)I + 1, std::get<I>(args)), ...);
}

template <bool Fibers, class F, class... A>
void launch(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
            F&& kernel, A&&... a) {
    std::tuple<std::decay_t<A>...> args(std::forward<A>(a)...);
    check_pointers(site, args, std::index_sequence_for<A...>{});
    struct Ctx { std::remove_reference_t<F>* kernel; std::tuple<std::decay_t<A>...>* args; } ctx{&kernel, &args};
    launch_erased(site, grid, block, dynamic_shared, stream, Fibers,
                  [](void* p) { Ctx* c = static_cast<Ctx*>(p); std::apply(*c->kernel, *c->args); }, &ctx);
}

// `cudaLaunchKernelEx(config, k, args)` becomes
//     ::t2c_emu::launch_ex<FIBERS>(site, config, [&](auto&... a) { k(a...); }, args)
// the same launch with the configuration's grid, block, shared bytes and stream.
void check_launch_attributes(const LaunchSite& site, const cudaLaunchConfig_t* config);
cudaError_t launch_status();

template <bool Fibers, class F, class... A>
cudaError_t launch_ex(const LaunchSite& site, const cudaLaunchConfig_t* config, F&& kernel, A&&... a) {
    check_launch_attributes(site, config);
    launch<Fibers>(site, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream,
                   std::forward<F>(kernel), std::forward<A>(a)...);
    return launch_status();
}

// __shared__ variables: one allocation per block, keyed by the address of a static
// tag local to the declaring function (so each template instantiation has its own).
void* shared_alloc(const void* key, size_t size, size_t align, const char* file, int line);
void* dynamic_shared(const char* file, int line);
template <class T> inline T& block_shared(const void* key, const char* file, int line) {
    return *static_cast<T*>(shared_alloc(key, sizeof(T), alignof(T), file, line));
}

// __device__ / __constant__ / __managed__ variables count as device memory for copies
// and kernel arguments.
struct Symbol {
    Symbol(const void* p, size_t size, const char* name, const char* file, int line);
};
}  // namespace t2c_emu
