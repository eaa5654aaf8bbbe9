// t2c emu: stands in for CUDA's <sm_20_atomic_functions.h>.
#pragma once
#include "t2c_emu.h"
