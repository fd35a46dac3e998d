// Hillis-Steele inclusive scan of one block.
extern "C" __global__ void scan_block(const float *in, float *out, int n)
{
    __shared__ float tmp[2][512];
    int t = threadIdx.x;
    int pout = 0, pin = 1;
    tmp[pout][t] = t < n ? in[t] : 0.0f;
    __syncthreads();
    for (int off = 1; off < n; off *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            tmp[pout][t] = tmp[pin][t] + tmp[pin][t - off];
        else
            tmp[pout][t] = tmp[pin][t];
        __syncthreads();
    }
    if (t < n) out[t] = tmp[pout][t];
}
