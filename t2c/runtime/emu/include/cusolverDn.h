// t2c emu: cuSOLVER is not modelled on the CPU.
#error "t2c-emu unsupported: cuSOLVER (cusolverDn.h)"
