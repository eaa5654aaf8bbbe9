// t2c emu: stands in for CUDA's <cuda_profiler_api.h>.
#pragma once
#include "t2c_emu.h"
