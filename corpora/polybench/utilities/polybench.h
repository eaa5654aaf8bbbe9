/*
 * polybench.h -- support header for the t2c PolyBench corpus.
 *
 * Written for t2c.  It follows the conventions of PolyBench/C 4.2.1 so that
 * kernels written against it build unchanged against the published suite and
 * vice versa:
 *   - POLYBENCH_1D .. POLYBENCH_5D declare array parameters (POLYBENCH_1D_F ..
 *     arrays inside functions); with POLYBENCH_USE_C99_PROTO the extents are the
 *     runtime size parameters, otherwise the dataset macros;
 *   - POLYBENCH_n_ARRAY_DECL declares an array and allocates it on the heap
 *     (on the stack with POLYBENCH_STACK_ARRAYS); POLYBENCH_ARRAY passes it,
 *     POLYBENCH_FREE_ARRAY frees it;
 *   - POLYBENCH_LOOP_BOUND gives the _PB_* loop bounds: the runtime sizes by
 *     default, the dataset macros with POLYBENCH_USE_SCALAR_LB (as published);
 *   - POLYBENCH_USE_RESTRICT marks array parameters `restrict`;
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

/* Loop bounds in the kernels: the runtime sizes, or the dataset macros with
   POLYBENCH_USE_SCALAR_LB.  (The name reads the other way round; this is the
   published meaning, which tools reading these files depend on.) */
#ifdef POLYBENCH_USE_SCALAR_LB
#define POLYBENCH_LOOP_BOUND(x, y) x
#else
#define POLYBENCH_LOOP_BOUND(x, y) y
#endif

#ifdef POLYBENCH_USE_RESTRICT
#define POLYBENCH_RESTRICT restrict
#else
#define POLYBENCH_RESTRICT
#endif

#define POLYBENCH_EXT_(d, dd) [POLYBENCH_C99_SELECT(d, dd) + POLYBENCH_PADDING_FACTOR]
#define POLYBENCH_REXT_(d, dd) [POLYBENCH_RESTRICT POLYBENCH_C99_SELECT(d, dd) + POLYBENCH_PADDING_FACTOR]
#define POLYBENCH_1D(var, d1, dd1) var POLYBENCH_REXT_(d1, dd1)
#define POLYBENCH_2D(var, d1, d2, dd1, dd2) var POLYBENCH_REXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2)
#define POLYBENCH_3D(var, d1, d2, d3, dd1, dd2, dd3) \
  var POLYBENCH_REXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3)
#define POLYBENCH_4D(var, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  var POLYBENCH_REXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3) POLYBENCH_EXT_(d4, dd4)
#define POLYBENCH_5D(var, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5)                       \
  var POLYBENCH_REXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3) \
      POLYBENCH_EXT_(d4, dd4) POLYBENCH_EXT_(d5, dd5)
/* The same shapes without `restrict`, for arrays declared inside functions. */
#define POLYBENCH_1D_F(var, d1, dd1) var POLYBENCH_EXT_(d1, dd1)
#define POLYBENCH_2D_F(var, d1, d2, dd1, dd2) var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2)
#define POLYBENCH_3D_F(var, d1, d2, d3, dd1, dd2, dd3) \
  var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3)
#define POLYBENCH_4D_F(var, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3) POLYBENCH_EXT_(d4, dd4)
#define POLYBENCH_5D_F(var, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5)                       \
  var POLYBENCH_EXT_(d1, dd1) POLYBENCH_EXT_(d2, dd2) POLYBENCH_EXT_(d3, dd3) \
      POLYBENCH_EXT_(d4, dd4) POLYBENCH_EXT_(d5, dd5)

/* Arrays in main: on the heap (a pointer to the array, passed as *x), or with
   POLYBENCH_STACK_ARRAYS on the stack.  A declaration also allocates. */
#define POLYBENCH_P_(d) [(d) + POLYBENCH_PADDING_FACTOR]
#ifndef POLYBENCH_STACK_ARRAYS
#define POLYBENCH_DECL_VAR(x) (*x)
#define POLYBENCH_ARRAY(x) *x
#define POLYBENCH_FREE_ARRAY(x) free((void *)x)
#define POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) \
  type POLYBENCH_1D_F(POLYBENCH_DECL_VAR(var), d1, dd1); \
  var = POLYBENCH_ALLOC_1D_ARRAY(POLYBENCH_C99_SELECT(d1, dd1), type)
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2) \
  type POLYBENCH_2D_F(POLYBENCH_DECL_VAR(var), d1, d2, dd1, dd2); \
  var = POLYBENCH_ALLOC_2D_ARRAY(POLYBENCH_C99_SELECT(d1, dd1), POLYBENCH_C99_SELECT(d2, dd2), type)
#define POLYBENCH_3D_ARRAY_DECL(var, type, d1, d2, d3, dd1, dd2, dd3) \
  type POLYBENCH_3D_F(POLYBENCH_DECL_VAR(var), d1, d2, d3, dd1, dd2, dd3); \
  var = POLYBENCH_ALLOC_3D_ARRAY(POLYBENCH_C99_SELECT(d1, dd1), POLYBENCH_C99_SELECT(d2, dd2), \
                                 POLYBENCH_C99_SELECT(d3, dd3), type)
#define POLYBENCH_4D_ARRAY_DECL(var, type, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  type POLYBENCH_4D_F(POLYBENCH_DECL_VAR(var), d1, d2, d3, d4, dd1, dd2, dd3, dd4); \
  var = POLYBENCH_ALLOC_4D_ARRAY(POLYBENCH_C99_SELECT(d1, dd1), POLYBENCH_C99_SELECT(d2, dd2), \
                                 POLYBENCH_C99_SELECT(d3, dd3), POLYBENCH_C99_SELECT(d4, dd4), type)
#define POLYBENCH_5D_ARRAY_DECL(var, type, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5) \
  type POLYBENCH_5D_F(POLYBENCH_DECL_VAR(var), d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5); \
  var = POLYBENCH_ALLOC_5D_ARRAY(POLYBENCH_C99_SELECT(d1, dd1), POLYBENCH_C99_SELECT(d2, dd2), \
                                 POLYBENCH_C99_SELECT(d3, dd3), POLYBENCH_C99_SELECT(d4, dd4), \
                                 POLYBENCH_C99_SELECT(d5, dd5), type)
#else
#define POLYBENCH_DECL_VAR(x) x
#define POLYBENCH_ARRAY(x) x
#define POLYBENCH_FREE_ARRAY(x)
#define POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1) type POLYBENCH_1D_F(var, d1, dd1)
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2) type POLYBENCH_2D_F(var, d1, d2, dd1, dd2)
#define POLYBENCH_3D_ARRAY_DECL(var, type, d1, d2, d3, dd1, dd2, dd3) \
  type POLYBENCH_3D_F(var, d1, d2, d3, dd1, dd2, dd3)
#define POLYBENCH_4D_ARRAY_DECL(var, type, d1, d2, d3, d4, dd1, dd2, dd3, dd4) \
  type POLYBENCH_4D_F(var, d1, d2, d3, d4, dd1, dd2, dd3, dd4)
#define POLYBENCH_5D_ARRAY_DECL(var, type, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5) \
  type POLYBENCH_5D_F(var, d1, d2, d3, d4, d5, dd1, dd2, dd3, dd4, dd5)
#endif

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
void polybench_free_data(void *ptr);
void polybench_flush_cache(void);
void polybench_prepare_instruments(void);
void polybench_timer_start(void);
void polybench_timer_stop(void);
void polybench_timer_print(void);

#endif /* POLYBENCH_H */
