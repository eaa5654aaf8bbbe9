// RED TEAM: does nothing: PolyBench's heat-3d init is an exact fixed point of the stencil,
// so this passes any check that only uses the original inputs.
#include <cuda_runtime.h>

extern "C" void kernel_heat_3d_device(int tsteps, int n, double *A, double *B)
{
  (void)tsteps; (void)n; (void)A; (void)B;
}

extern "C" void kernel_heat_3d(int tsteps, int n, double *A, double *B)
{
  (void)tsteps; (void)n; (void)A; (void)B;
}
