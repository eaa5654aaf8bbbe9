// t2c emu: stands in for CUDA's <device_atomic_functions.h>.
#pragma once
#include "t2c_emu.h"
