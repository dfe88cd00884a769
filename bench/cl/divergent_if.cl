// divergent_if twin: if / else if / else chains on data, nested, with && and ||.
#include "common.h"
__kernel void divergent_if(__global const int *a, __global int *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    int x = a[i] - 500;
    int r = 0;
    if (x < -250) {
        r = x * 2;
    } else if (x < 0) {
        if (x % 2 == 0) {
            r = -x;
        } else {
            r = x + 1000;
        }
    } else if (x == 0 || (x > 400 && x % 3 == 0)) {
        r = 7;
    } else {
        r = x / 3 + 11;
    }
    if (r > 100 && i % 2 == 1) r += 10000;
    out[i] = r;
}
