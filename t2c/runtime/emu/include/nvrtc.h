// t2c emu: NVRTC is not modelled on the CPU.
#error "t2c-emu unsupported: NVRTC (nvrtc.h)"
