// t2c emu: fp8 types is not modelled on the CPU.
#error "t2c-emu unsupported: fp8 types (cuda_fp8.h)"
