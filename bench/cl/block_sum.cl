// block_sum twin: a tree reduction in shared memory per work-group of 128; out[group] = the
// sum of its a[i], elements at and past n counting as 0.
#include "common.h"
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void block_sum(__global const float *a, __global float *out, unsigned n) {
    __local float tile[128];
    unsigned l = LID_X();
    unsigned i = GID_X();
    tile[l] = i < n ? a[i] : 0.0f;
    BARRIER();
    for (unsigned s = __builtin_amdgcn_workgroup_size_x() / 2; s > 0; s >>= 1) {
        if (l < s) tile[l] += tile[l + s];
        BARRIER();
    }
    if (l == 0) out[GROUP_X()] = tile[0];
}
