// wave_reduce twin: wave sum, min and max over the active lanes of each wave, and the sum over
// the odd values inside a divergent branch. The reductions walk the active lanes of a ballot
// with readlane (what LLVM's own wave.reduce lowering does), which gives exactly the
// kernel language's "combine the active lanes", partial waves included.
#include "common.h"
#if __AMDGCN_WAVEFRONT_SIZE == 64
typedef ulong mask_t;
#define BALLOT(c) __builtin_amdgcn_ballot_w64(c)
#define LOWEST(m) ((unsigned)__builtin_ctzl(m))
#else
typedef unsigned mask_t;
#define BALLOT(c) __builtin_amdgcn_ballot_w32(c)
#define LOWEST(m) ((unsigned)__builtin_ctz(m))
#endif
static unsigned wave_sum(unsigned v) {
    unsigned s = 0;
    for (mask_t m = BALLOT(1); m != 0; m &= m - 1) s += (unsigned)__builtin_amdgcn_readlane((int)v, LOWEST(m));
    return s;
}
static unsigned wave_min(unsigned v) {
    unsigned s = 0xffffffffu;
    for (mask_t m = BALLOT(1); m != 0; m &= m - 1) {
        unsigned x = (unsigned)__builtin_amdgcn_readlane((int)v, LOWEST(m));
        s = x < s ? x : s;
    }
    return s;
}
static unsigned wave_max(unsigned v) {
    unsigned s = 0;
    for (mask_t m = BALLOT(1); m != 0; m &= m - 1) {
        unsigned x = (unsigned)__builtin_amdgcn_readlane((int)v, LOWEST(m));
        s = x > s ? x : s;
    }
    return s;
}
__kernel void wave_reduce(__global const unsigned *a, __global unsigned *out, unsigned n) {
    unsigned i = GID_X();
    unsigned v = i < n ? a[i] : 0u;
    unsigned sum = wave_sum(v), lo = wave_min(v), hi = wave_max(v);
    unsigned odd = 0;
    if (v % 2 == 1) odd = wave_sum(v);
    unsigned odd_sum = wave_max(odd);
    if (LANE_ID() == 0) {
        unsigned w = i / __AMDGCN_WAVEFRONT_SIZE;
        out[4 * w] = sum;
        out[4 * w + 1] = lo;
        out[4 * w + 2] = hi;
        out[4 * w + 3] = odd_sum;
    }
}
