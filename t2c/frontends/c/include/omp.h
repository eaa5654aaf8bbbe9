#include "_t2c_base.h"
int omp_get_thread_num(void); int omp_get_num_threads(void);
