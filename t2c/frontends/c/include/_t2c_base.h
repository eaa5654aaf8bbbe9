/* Minimal declarations that stand in for the C library while t2c parses a
   kernel with pycparser (which reads C99 only, not a system's headers).
   Written for t2c. */
#ifndef T2C_BASE_H
#define T2C_BASE_H
typedef unsigned long size_t;
typedef long ssize_t;
typedef long ptrdiff_t;
typedef int wchar_t;
typedef struct T2C_FILE FILE;
typedef long time_t;
typedef long clock_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef int _Bool_t;
#define NULL ((void *)0)
#endif
