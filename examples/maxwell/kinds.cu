// Every kind of parameter and memory a launch file can give a kernel.
__constant__ float scale[4]; // constant bank 3: the launch file's constant image sets it

extern "C" __global__ void kinds(int s, unsigned long long u, double d, float f,
                                 const float *far, double *out, int *hist)
{
    extern __shared__ float dyn[]; // dynamic shared memory ("shared_bytes"), preset by a shared image
    float loc[64];               // indexed by data: local memory ("local_bytes")
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < 64; i++)
        loc[(i * 5 + t) & 63] = far[i & 31] * f; // a permutation of 0..63
    int k = (int)far[t] & 63;
    double v = (double)(dyn[threadIdx.x] + scale[t % 4]) * d + s + (double)u + loc[k];
    out[t] = v;
    atomicAdd(&hist[t % 4], s);
}
