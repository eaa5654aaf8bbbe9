// t2c emu: stands in for CUDA's <cuda_runtime_api.h>.
#pragma once
#include "t2c_emu.h"
