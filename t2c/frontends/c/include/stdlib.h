#include "_t2c_base.h"
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
void exit(int);
void abort(void);
int abs(int);
long labs(long);
int atoi(const char *);
double atof(const char *);
int rand(void);
void srand(unsigned);
char *getenv(const char *);
int system(const char *);
int posix_memalign(void **, size_t, size_t);
#define RAND_MAX 2147483647
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
