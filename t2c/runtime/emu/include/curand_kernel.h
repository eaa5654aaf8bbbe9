// t2c emu: cuRAND is not modelled on the CPU.
#error "t2c-emu unsupported: cuRAND (curand_kernel.h)"
