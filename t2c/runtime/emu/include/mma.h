// t2c emu: tensor-core WMMA is not modelled on the CPU.
#error "t2c-emu unsupported: tensor-core WMMA (mma.h)"
