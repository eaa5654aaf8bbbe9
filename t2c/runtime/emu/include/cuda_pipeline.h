// t2c emu: asynchronous copies (the primitives API).  A copy is done when its thread waits for its
// batch (__pipeline_wait_prior), the latest moment a GPU may do it, so that reading the destination
// before the wait (or before the barrier after it, for other threads) is a wrong value or a race.
#pragma once
#include "t2c_emu/device.h"
#define __pipeline_memcpy_async(...) ::t2c_emu::pipeline_copy_at(__FILE__, __LINE__, __VA_ARGS__)
#define __pipeline_commit() ::t2c_emu::pipeline_commit()
#define __pipeline_wait_prior(n) ::t2c_emu::pipeline_wait_prior((size_t)(n))
