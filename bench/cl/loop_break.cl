// loop_break twin: a bounded Collatz walk with break, and continue on even steps.
#include "common.h"
__kernel void loop_break(__global const unsigned *a, __global unsigned *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    unsigned v = a[i] + 1, steps = 0, odd = 0;
    for (;;) {
        if (v == 1 || steps >= 60) break;
        steps += 1;
        if (v % 2 == 0) {
            v = v / 2;
            continue;
        }
        odd += 1;
        v = 3 * v + 1;
    }
    out[i] = steps | odd << 8 | (v & 0xffff) << 16;
}
