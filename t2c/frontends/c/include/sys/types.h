#include "../_t2c_base.h"
