// t2c emu: stands in for CUDA's <cooperative_groups.h>: the grid and the block as groups.
//
// grid_group::sync() waits for every thread of every block; it is valid only in a kernel
// launched with cudaLaunchCooperativeKernel (or cudaLaunchKernelEx with the cooperative
// attribute), as on a GPU; elsewhere it is a finding at its line.  sync() takes its call
// site through default arguments, so a finding names the line in the .cu.  Tiles, coalesced
// groups, clusters and multi-grid groups are not modelled (the rewriter refuses them).
#pragma once
#include "t2c_emu.h"

namespace cooperative_groups {
namespace t2c_detail {
inline unsigned long long linear(uint3 i, dim3 d) {
    return i.x + (unsigned long long)d.x * (i.y + (unsigned long long)d.y * i.z);
}
}  // namespace t2c_detail

class thread_block {
 public:
    static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::t2c_emu::syncthreads(file, line);
    }
    static unsigned int size() { return blockDim.x * blockDim.y * blockDim.z; }
    static unsigned int num_threads() { return size(); }
    static unsigned int thread_rank() { return (unsigned)t2c_detail::linear(threadIdx, blockDim); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 dim_threads() { return blockDim; }
    static dim3 group_dim() { return blockDim; }
    static bool is_valid() { return true; }
};

class grid_group {
 public:
    bool is_valid() const { return ::t2c_emu::grid_is_cooperative(); }
    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::t2c_emu::grid_sync(file, line);
    }
    static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    static unsigned long long block_rank() { return t2c_detail::linear(blockIdx, gridDim); }
    static unsigned long long num_threads() { return num_blocks() * thread_block::size(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank() { return block_rank() * thread_block::size() + thread_block::thread_rank(); }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() {
        return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                    blockIdx.z * blockDim.z + threadIdx.z);
    }
    static dim3 dim_blocks() { return gridDim; }
    static dim3 group_dim() { return gridDim; }
    static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
};

inline thread_block this_thread_block() { return thread_block(); }
inline grid_group this_grid() { return grid_group(); }

template <class Group>
inline void sync(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    g.sync(file, line);
}
}  // namespace cooperative_groups
