// t2c emu: cuDNN is not modelled on the CPU.
#error "t2c-emu unsupported: cuDNN (cudnn.h)"
