#include "_t2c_base.h"
int usleep(unsigned); int sleep(unsigned);
