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
// max_threads: the kernel's __launch_bounds__ (0: none); a larger block fails as on a GPU.
struct LaunchSite { const char* file; int line; const char* kernel; unsigned max_threads = 0; };
typedef void (*ThreadBody)(void* ctx);

// Runs the launch and gives its result (also kept for cudaGetLastError when it is an error).
// A cooperative launch runs every block at once (fibers on one OS thread), so grid_sync can
// wait for all of them; it fails with cudaErrorCooperativeLaunchTooLarge, as on a GPU, when
// its grid exceeds the blocks the occupancy model lets reside on the device at once.
cudaError_t launch_erased(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared,
                          cudaStream_t stream, bool fibers, bool cooperative, ThreadBody body, void* ctx);
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

// The launch of `kernel` on arguments already evaluated into `args`.
template <bool Fibers, class F, class Tuple>
cudaError_t launch_tuple(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
                         bool cooperative, F& kernel, Tuple& args) {
    check_pointers(site, args, std::make_index_sequence<std::tuple_size<Tuple>::value>{});
    struct Ctx { F* kernel; Tuple* args; } ctx{&kernel, &args};
    return launch_erased(site, grid, block, dynamic_shared, stream, Fibers, cooperative,
                         [](void* p) { Ctx* c = static_cast<Ctx*>(p); std::apply(*c->kernel, *c->args); }, &ctx);
}

template <bool Fibers, class F, class... A>
void launch(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
            F&& kernel, A&&... a) {
    std::tuple<std::decay_t<A>...> args(std::forward<A>(a)...);
    launch_tuple<Fibers>(site, grid, block, dynamic_shared, stream, false, kernel, args);
}

// `cudaLaunchKernelEx(config, k, args)` becomes
//     ::t2c_emu::launch_ex<FIBERS>(site, config, [&](auto&... a) { k(a...); }, args)
// the same launch with the configuration's grid, block, shared bytes and stream; true when the
// configuration asks for a cooperative launch (other attributes it does not model: a finding).
bool check_launch_attributes(const LaunchSite& site, const cudaLaunchConfig_t* config);

template <bool Fibers, class F, class... A>
cudaError_t launch_ex(const LaunchSite& site, const cudaLaunchConfig_t* config, F&& kernel, A&&... a) {
    bool cooperative = check_launch_attributes(site, config);
    std::tuple<std::decay_t<A>...> args(std::forward<A>(a)...);
    return launch_tuple<Fibers>(site, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream,
                                cooperative, kernel, args);
}

// `cudaLaunchCooperativeKernel((void*)k, grid, block, args, smem, stream)` becomes
//     ::t2c_emu::launch_cooperative(site, k, grid, block, args, smem, stream)
// args[i] points to the value of k's parameter i, as on a GPU.
cudaError_t missing_arguments(const LaunchSite& site);

template <class... P, size_t... I>
cudaError_t launch_cooperative(const LaunchSite& site, void (*kernel)(P...), dim3 grid, dim3 block, void** args,
                               size_t dynamic_shared, cudaStream_t stream, std::index_sequence<I...>) {
    if (sizeof...(P) > 0 && args == nullptr) return missing_arguments(site);
    std::tuple<std::decay_t<P>...> values(*static_cast<std::decay_t<P>*>(args[I])...);
    return launch_tuple<true>(site, grid, block, dynamic_shared, stream, true, kernel, values);
}
template <class... P>
cudaError_t launch_cooperative(const LaunchSite& site, void (*kernel)(P...), dim3 grid, dim3 block, void** args,
                               size_t dynamic_shared = 0, cudaStream_t stream = 0) {
    return launch_cooperative(site, kernel, grid, block, args, dynamic_shared, stream, std::index_sequence_for<P...>{});
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
