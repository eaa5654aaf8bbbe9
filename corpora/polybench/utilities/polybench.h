/*
 * polybench.h -- support header for the t2c PolyBench corpus.
 *
 * Written for t2c.  It follows the conventions of PolyBench/C 4.2.1 so that
 * kernels written against it build unchanged against the published suite and
 * vice versa:
 *   - POLYBENCH_1D .. POLYBENCH_5D declare array parameters; with
 *     POLYBENCH_USE_C99_PROTO the extents are the runtime size parameters;
 *   - POLYBENCH_n_ARRAY_DECL / POLYBENCH_ALLOC_n_ARRAY / POLYBENCH_ARRAY /
 *     POLYBENCH_FREE_ARRAY allocate arrays on the heap;
 *   - POLYBENCH_LOOP_BOUND gives the _PB_* loop bounds (the runtime sizes
 *     when POLYBENCH_USE_SCALAR_LB is defined, the macros otherwise);
 *   - POLYBENCH_DUMP_* write the dump format on stderr;
 *   - POLYBENCH_TIME prints the kernel time in seconds.
 */
#ifndef POLYBENCH_H
#define POLYBENCH_H

#include <stdlib.h>
#include <string.h>

/* `#pragma scop` / `#pragma endscop` mark the kernels for polyhedral tools;
   compilers that do not know them must not fail a -Wall -Werror build. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#ifndef POLYBENCH_PADDING_FACTOR
#define POLYBENCH_PADDING_FACTOR 0
#endif

/* The dataset: LARGE unless one is chosen with -D<NAME>_DATASET. */
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
    && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#define LARGE_DATASET
#endif

/* Array extents in prototypes: compile-time macros, or the runtime sizes. */
#ifdef POLYBENCH_USE_C99_PROTO
#define POLYBENCH_C99_SELECT(x, y) y
#else
#define POLYBENCH_C99_SELECT(x, y) x
#endif

#ifdef POLYBENCH_USE_SCALAR_LB
#define POLYBENCH_LOOP_BOUND(x, y) y
#else
#define POLYBENCH_LOOP_BOUND(x, y) x
#endif

#define POLYBENCH_EXT_(d, dd) [POLYBENCH_C99_SELECT(d, dd) + POLYBENCH_PADDING_FACTOR]
#define POLYBENCH_1D(var, d1, dd1) var POLYBENCH_EXT_(d1, dd1)
#define POLYBENCH_2D(var, d1, d2, dd1, dd2) var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2)
#define POLYBENCH_3D(var, d1, d2, d3, dd1, dd2, dd3) \
  var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3)
#define POLYBENCH_4D(var, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3) POLYBENCH_EXT_(d4, dd4)
#define POLYBENCH_5D(var, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5)                       \
  var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3) \
      POLYBENCH_EXT_(d4, dd4) POLYBENCH_EXT_(d5, dd5)

/* Heap arrays: declared as pointers to arrays, used through POLYBENCH_ARRAY. */
#define POLYBENCH_P_(d) [(d) + POLYBENCH_PADDING_FACTOR]
#define POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) type (*var) POLYBENCH_P_(d1)
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2) type (*var) POLYBENCH_P_(d1) POLYBENCH_P_(d2)
#define POLYBENCH_3D_ARRAY_DECL(var, type, d1, d2, d3, dd1, dd2, dd3) \
  type (*var) POLYBENCH_P_(d1) POLYBENCH_P_(d2) POLYBENCH_P_(d3)
#define POLYBENCH_4D_ARRAY_DECL(var, type, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  type (*var) POLYBENCH_P_(d1) POLYBENCH_P_(d2) POLYBENCH_P_(d3) POLYBENCH_P_(d4)
#define POLYBENCH_5D_ARRAY_DECL(var, type, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5) \
  type (*var) POLYBENCH_P_(d1) POLYBENCH_P_(d2) POLYBENCH_P_(d3) POLYBENCH_P_(d4) POLYBENCH_P_(d5)

#define POLYBENCH_ALLOC_1D_ARRAY(n1, type) \
  (type (*) POLYBENCH_P_(n1)) polybench_alloc_data((n1) + POLYBENCH_PADDING_FACTOR, sizeof(type))
#define POLYBENCH_ALLOC_2D_ARRAY(n1, n2, type)                              \
  (type (*) POLYBENCH_P_(n1) POLYBENCH_P_(n2)) polybench_alloc_data(        \
      ((n1) + POLYBENCH_PADDING_FACTOR) * ((n2) + POLYBENCH_PADDING_FACTOR), sizeof(type))
#define POLYBENCH_ALLOC_3D_ARRAY(n1, n2, n3, type)                                              \
  (type (*) POLYBENCH_P_(n1) POLYBENCH_P_(n2) POLYBENCH_P_(n3)) polybench_alloc_data(           \
      ((n1) + POLYBENCH_PADDING_FACTOR) * ((n2) + POLYBENCH_PADDING_FACTOR) *                   \
          ((n3) + POLYBENCH_PADDING_FACTOR), sizeof(type))
#define POLYBENCH_ALLOC_4D_ARRAY(n1, n2, n3, n4, type)                                              \
  (type (*) POLYBENCH_P_(n1) POLYBENCH_P_(n2) POLYBENCH_P_(n3) POLYBENCH_P_(n4)) polybench_alloc_data( \
      ((n1) + POLYBENCH_PADDING_FACTOR) * ((n2) + POLYBENCH_PADDING_FACTOR) *                       \
          ((n3) + POLYBENCH_PADDING_FACTOR) * ((n4) + POLYBENCH_PADDING_FACTOR), sizeof(type))
#define POLYBENCH_ALLOC_5D_ARRAY(n1, n2, n3, n4, n5, type)                                    \
  (type (*) POLYBENCH_P_(n1) POLYBENCH_P_(n2) POLYBENCH_P_(n3) POLYBENCH_P_(n4) POLYBENCH_P_(n5)) \
      polybench_alloc_data(((n1) + POLYBENCH_PADDING_FACTOR) * ((n2) + POLYBENCH_PADDING_FACTOR) * \
                               ((n3) + POLYBENCH_PADDING_FACTOR) * ((n4) + POLYBENCH_PADDING_FACTOR) * \
                               ((n5) + POLYBENCH_PADDING_FACTOR), sizeof(type))

#define POLYBENCH_1D_ARRAY(var, d1) POLYBENCH_ALLOC_1D_ARRAY(d1, __typeof__(**var))
#define POLYBENCH_ARRAY(x) *x
#define POLYBENCH_FREE_ARRAY(x) free((void *)x)

/* Prints the outputs with -DPOLYBENCH_DUMP_ARRAYS; otherwise keeps the
   compiler from removing the kernel without printing anything. */
#ifdef POLYBENCH_DUMP_ARRAYS
#define POLYBENCH_DCE_ONLY_CODE
#else
#define POLYBENCH_DCE_ONLY_CODE if (argc > 42 && !strcmp(argv[0], ""))
#endif
#define polybench_prevent_dce(func) POLYBENCH_DCE_ONLY_CODE func

/* Dump format (stderr). */
#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_BEGIN(s) fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
#define POLYBENCH_DUMP_END(s) fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)

/* Timing: active with -DPOLYBENCH_TIME, empty otherwise. */
#ifdef POLYBENCH_TIME
#define polybench_start_instruments polybench_timer_start();
#define polybench_stop_instruments polybench_timer_stop();
#define polybench_print_instruments polybench_timer_print();
#else
#define polybench_start_instruments
#define polybench_stop_instruments
#define polybench_print_instruments
#endif

extern double polybench_program_total_flops;
void *polybench_alloc_data(unsigned long long n, int elt_size);
void polybench_flush_cache(void);
void polybench_timer_start(void);
void polybench_timer_stop(void);
void polybench_timer_print(void);

#endif /* POLYBENCH_H */
