#include "_t2c_base.h"
time_t time(time_t *); clock_t clock(void);
#define CLOCKS_PER_SEC 1000000L
struct timespec { time_t tv_sec; long tv_nsec; }; int clock_gettime(int, struct timespec *);
#define CLOCK_MONOTONIC 1
