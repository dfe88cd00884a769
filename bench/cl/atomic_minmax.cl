// atomic_minmax twin: global atomic min, max, and, or and xor of every element into out[0..5]
// (relaxed, agent scope).
#include "common.h"
__kernel void atomic_minmax(__global const int *a, __global int *out, unsigned n) {
    unsigned i = GID_X();
    if (i < n) {
        int v = a[i] * 5 - 2500;
        __scoped_atomic_fetch_min(&out[0], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
        __scoped_atomic_fetch_max(&out[1], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
        __scoped_atomic_fetch_and(&out[2], v | -1024, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
        __scoped_atomic_fetch_or(&out[3], 1 << (a[i] % 31), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
        __scoped_atomic_fetch_xor(&out[4], v, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    }
}
