// t2c emu: bfloat16 types is not modelled on the CPU.
#error "t2c-emu unsupported: bfloat16 types (cuda_bf16.h)"
