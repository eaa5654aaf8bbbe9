// t2c emu: cuBLASLt is not modelled on the CPU.
#error "t2c-emu unsupported: cuBLASLt (cublasLt.h)"
