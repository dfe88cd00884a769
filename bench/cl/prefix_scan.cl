// prefix_scan twin: the inclusive prefix sum of each work-group's 64 values (Hillis and
// Steele, two halves of shared memory taking turns).
#include "common.h"
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void prefix_scan(__global const unsigned *a, __global unsigned *out, unsigned n) {
    __local unsigned buf[128];
    unsigned l = LID_X();
    unsigned i = GID_X();
    buf[l] = i < n ? a[i] : 0u;
    BARRIER();
    unsigned src = 0;
    for (unsigned offset = 1; offset < 64; offset <<= 1) {
        unsigned dst = 64 - src;
        unsigned v = buf[src + l];
        if (l >= offset) v += buf[src + l - offset];
        buf[dst + l] = v;
        BARRIER();
        src = dst;
    }
    if (i < n) out[i] = buf[src + l];
}
