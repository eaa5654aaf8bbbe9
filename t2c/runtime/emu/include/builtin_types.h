// t2c emu: stands in for CUDA's <builtin_types.h>.
#pragma once
#include "t2c_emu.h"
