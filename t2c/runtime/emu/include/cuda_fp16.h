// t2c emu: half-precision types is not modelled on the CPU.
#error "t2c-emu unsupported: half-precision types (cuda_fp16.h)"
