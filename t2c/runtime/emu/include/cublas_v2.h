// t2c emu: cuBLAS is not modelled on the CPU.
#error "t2c-emu unsupported: cuBLAS (cublas_v2.h)"
