// switch_case twin: a multiway branch on a % 6, each case its own computation.
#include "common.h"
__kernel void switch_case(__global const unsigned *a, __global unsigned *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    unsigned x = a[i];
    unsigned r;
    switch (x % 6) {
    case 0: r = x * 3; break;
    case 1: r = x ^ 0xabcd; break;
    case 2: r = x << 4; break;
    case 3: r = __builtin_popcount(x) + 100; break;
    case 4: r = x / 7; break;
    default: r = 0xffffffffu; break;
    }
    out[i] = r;
}
