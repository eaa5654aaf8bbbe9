#include "../_t2c_base.h"
struct timeval { long tv_sec; long tv_usec; }; int gettimeofday(struct timeval *, void *);
