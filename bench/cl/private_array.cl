// private_array twin: a private array written and read with indices that come from the data.
#include "common.h"
__kernel void private_array(__global const unsigned *a, __global unsigned *out, unsigned n) {
    unsigned i = GID_X();
    if (i >= n) return;
    unsigned p[16];
    for (unsigned k = 0; k < 16; k++) p[k] = a[(i + k) % n] * (k + 1);
    unsigned x = a[i];
    p[x % 16] += 1000;
    p[(x / 16) % 16] ^= 0x5555;
    unsigned s = 0, j = x % 16;
    for (unsigned k = 0; k < 8; k++) {
        s = s * 3 + p[j];
        j = (j + p[j]) % 16;
    }
    out[i] = s;
}
