// t2c emu: stands in for CUDA's <cuda.h>.
#pragma once
#include "t2c_emu.h"
