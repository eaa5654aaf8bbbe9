#include "_t2c_base.h"
typedef char *va_list;
