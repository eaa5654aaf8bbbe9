// t2c emu: cuFFT is not modelled on the CPU.
#error "t2c-emu unsupported: cuFFT (cufft.h)"
