// nested_loops twin: an outer loop of m rounds and an inner loop whose trip count comes from
// the data.
#include "common.h"
__kernel void nested_loops(__global const float *a, __global float *out, unsigned n, unsigned m) {
    unsigned i = GID_X();
    if (i >= n) return;
    float acc = 0.0f;
    for (unsigned j = 0; j < m; j++) {
        float c = (a[(i + j) % n] + 1.0f) * 4.0f;
        unsigned count = !(c > 0.0f) ? 0u : c >= 4294967296.0f ? 0xffffffffu : (unsigned)c;
        for (unsigned k = 0; k < count; k++) acc = acc * 0.5f + a[(i * 7 + k) % n];
    }
    out[i] = acc;
}
