#include "_t2c_base.h"
#define bool _Bool
#define true 1
#define false 0
