// t2c emu: stands in for CUDA's <crt/host_defines.h>.
#pragma once
#include "../t2c_emu.h"
