// t2c emu: textures is not modelled on the CPU.
#error "t2c-emu unsupported: textures (texture_fetch_functions.h)"
