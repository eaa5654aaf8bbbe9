// t2c emu: stands in for CUDA's <host_defines.h>.
#pragma once
#include "t2c_emu.h"
