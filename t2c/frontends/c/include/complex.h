#error "C99 complex types are not supported; hold each complex number as a struct of two (typedef struct { double re, im; } cplx;), which t2c reads as a flat array of pairs"
