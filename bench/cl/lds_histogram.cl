// lds_histogram twin: 64 shared bins counted with workgroup-scope atomics over a grid-stride
// loop, then added to the global bins.
#include "common.h"
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void lds_histogram(__global const unsigned *a, __global unsigned *bins, unsigned n) {
    __local unsigned local_bins[64];
    unsigned l = LID_X();
    if (l < 64) local_bins[l] = 0;
    BARRIER();
    unsigned sx = __builtin_amdgcn_workgroup_size_x();
    unsigned stride = sx * ((__builtin_amdgcn_grid_size_x() + sx - 1) / sx);
    for (unsigned i = GID_X(); i < n; i += stride)
        __scoped_atomic_fetch_add(&local_bins[a[i] % 64], 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
    BARRIER();
    if (l < 64) {
        unsigned count = local_bins[l];
        if (count > 0) __scoped_atomic_fetch_add(&bins[l], count, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    }
}
