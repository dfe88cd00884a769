// cas_max twin: the largest float through a compare-and-swap loop on an order-preserving
// integer key (relaxed, agent scope).
#include "common.h"
__kernel void cas_max(__global const float *a, __global unsigned *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    float f = a[i] * 8388608.0f;
    int k = f != f ? 0 : f >= 2147483648.0f ? 2147483647 : f <= -2147483648.0f ? -2147483647 - 1 : (int)f;
    unsigned key = (unsigned)k + 8388608u;
    unsigned old = __scoped_atomic_load_n(&out[0], __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    while (key > old) {
        unsigned prev = old;
        // On failure the builtin writes the current value into `prev`.
        if (__scoped_atomic_compare_exchange_n(&out[0], &prev, key, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                               __MEMORY_SCOPE_DEVICE))
            break;
        old = prev;
    }
}
