/*
 * polybench.c -- timer, allocation and cache-flush helpers for the t2c
 * PolyBench corpus (written for t2c, PolyBench/C 4.2.1 conventions).
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polybench.h"

double polybench_program_total_flops = 0;
static double polybench_t_start, polybench_t_end;

static double polybench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
}

/* Evicts the caches by streaming through a buffer larger than the last level. */
void polybench_flush_cache(void)
{
  size_t n = 32 * 1024 * 1024 / sizeof(double);
  double *buf = (double *)calloc(n, sizeof(double));
  double sum = 0.0;
  size_t i;
  if (buf == NULL)
    return;
  for (i = 0; i < n; i++)
    sum += buf[i];
  if (sum != 0.0)
    fprintf(stderr, "polybench_flush_cache: unexpected sum\n");
  free(buf);
}

void polybench_timer_start(void)
{
  polybench_flush_cache();
  polybench_t_start = polybench_now();
}

void polybench_timer_stop(void) { polybench_t_end = polybench_now(); }

void polybench_timer_print(void) { printf("%0.6f\n", polybench_t_end - polybench_t_start); }

/* Zeroed, 64-byte aligned storage; exits with a message when memory runs out. */
void *polybench_alloc_data(unsigned long long n, int elt_size)
{
  void *p = NULL;
  size_t bytes = (size_t)n * (size_t)elt_size;
  if (bytes == 0)
    bytes = 1;
  if (posix_memalign(&p, 64, bytes) != 0 || p == NULL) {
    fprintf(stderr, "[PolyBench] polybench_alloc_data: cannot allocate %llu bytes\n",
            (unsigned long long)bytes);
    exit(1);
  }
  memset(p, 0, bytes);
  return p;
}

void polybench_free_data(void *ptr) { free(ptr); }

/* Before a timed region: the caches hold none of the kernel's data. */
void polybench_prepare_instruments(void) { polybench_flush_cache(); }
