// t2c emu: OpenGL interop is not modelled on the CPU.
#error "t2c-emu unsupported: OpenGL interop (cuda_gl_interop.h)"
