// IEEE f32 division, as nvcc compiles it without fast math: a fast path
// and, for operands whose quotient may be tiny, huge or subnormal, ptxas's
// slow path (an exponent adjustment by a folded constant when the divisor
// is one: IADD3 R6, R6, 0xfffeb, R3 for 3214212.01f).
extern "C" __global__ void fdiv_const(const float *a, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] / 3214212.01f;
}

extern "C" __global__ void fdiv_var(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] / b[i];
}
