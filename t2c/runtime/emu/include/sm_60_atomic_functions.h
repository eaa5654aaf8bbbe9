// t2c emu: stands in for CUDA's <sm_60_atomic_functions.h>.
#pragma once
#include "t2c_emu.h"
