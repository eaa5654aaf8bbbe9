// t2c emu: cuSPARSE is not modelled on the CPU.
#error "t2c-emu unsupported: cuSPARSE (cusparse.h)"
