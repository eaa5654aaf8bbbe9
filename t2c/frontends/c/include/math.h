#include "_t2c_base.h"
double sqrt(double); float sqrtf(float);
double exp(double); float expf(float);
double log(double); float logf(float);
double pow(double, double); float powf(float, float);
double fabs(double); float fabsf(float);
double sin(double); float sinf(float);
double cos(double); float cosf(float);
double tan(double); float tanf(float);
double tanh(double); float tanhf(float);
double atan(double); float atanf(float);
double atan2(double, double); float atan2f(float, float);
double floor(double); float floorf(float);
double ceil(double); float ceilf(float);
double fmin(double, double); float fminf(float, float);
double fmax(double, double); float fmaxf(float, float);
double fmod(double, double); float fmodf(float, float);
double erf(double); float erff(float);
double log2(double); float log2f(float);
double log10(double); float log10f(float);
double exp2(double); float exp2f(float);
double round(double); float roundf(float);
double cbrt(double); float cbrtf(float);
double fma(double, double, double); float fmaf(float, float, float);
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define HUGE_VAL (1.0 / 0.0)
#define INFINITY (1.0f / 0.0f)
#define NAN (0.0f / 0.0f)
