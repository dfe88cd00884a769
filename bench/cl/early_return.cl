// early_return twin: some lanes leave early (before and inside a loop), the others go on to
// write more.
#include "common.h"
__kernel void early_return(__global const int *a, __global int *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    int x = a[i];
    if (x < 100) {
        out[2 * i] = x;
        return;
    }
    int s = 0;
    for (int k = 0; k < x % 17; k++) {
        s += k * x;
        if (s > 20000) {
            out[2 * i] = s;
            return;
        }
    }
    out[2 * i] = s;
    out[2 * i + 1] = x * 2;
}
