// histogram twin: 64 bins counted with global atomic adds (relaxed, agent scope).
#include "common.h"
__kernel void histogram(__global const unsigned *a, __global unsigned *bins, unsigned n) {
    unsigned i = GID_X();
    if (i < n) __scoped_atomic_fetch_add(&bins[a[i] % 64], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}
