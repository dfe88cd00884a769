// A private array indexed at run time, so it lives in scratch; args (int *out, const int *idx, char k); one work-group of up to 1024 work-items, idx has >= 32 and >= block elements: tmp[j] = idx[(lx+j)&31]*k, out[lx] = tmp[idx[lx]&31].
__kernel void priv(__global int *out, __global const int *idx, char k) {
    int tmp[32];
    unsigned lx = __builtin_amdgcn_workitem_id_x();
    for (int j = 0; j < 32; j++) tmp[j] = idx[(lx + j) & 31] * k;
    out[lx] = tmp[idx[lx] & 31];
}
