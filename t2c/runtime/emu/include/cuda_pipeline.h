// t2c emu: asynchronous copies is not modelled on the CPU.
#error "t2c-emu unsupported: asynchronous copies (cuda_pipeline.h)"
