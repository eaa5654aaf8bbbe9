// t2c emu: stands in for CUDA's <vector_types.h>.
#pragma once
#include "t2c_emu.h"
