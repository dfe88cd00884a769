// ballot_count twin: per wave, the popcount of a ballot, and any / all over the active lanes
// (a ballot against the ballot of the active lanes).
#include "common.h"
__kernel void ballot_count(__global const int *a, __global unsigned *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    int x = a[i] - 500;
#if __AMDGCN_WAVEFRONT_SIZE == 64
    ulong votes = __builtin_amdgcn_ballot_w64(x > 0);
    ulong some = __builtin_amdgcn_ballot_w64(x > 480);
    ulong every = __builtin_amdgcn_ballot_w64(x > -490);
    ulong active = __builtin_amdgcn_ballot_w64(1);
    unsigned count = __builtin_popcountl(votes);
#else
    unsigned votes = __builtin_amdgcn_ballot_w32(x > 0);
    unsigned some = __builtin_amdgcn_ballot_w32(x > 480);
    unsigned every = __builtin_amdgcn_ballot_w32(x > -490);
    unsigned active = __builtin_amdgcn_ballot_w32(1);
    unsigned count = __builtin_popcount(votes);
#endif
    if (LANE_ID() == 0) {
        unsigned w = i / __AMDGCN_WAVEFRONT_SIZE;
        out[3 * w] = count;
        out[3 * w + 1] = some != 0;
        out[3 * w + 2] = every == active;
    }
}
