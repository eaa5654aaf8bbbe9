// t2c emu: NCCL is not modelled on the CPU.
#error "t2c-emu unsupported: NCCL (nccl.h)"
