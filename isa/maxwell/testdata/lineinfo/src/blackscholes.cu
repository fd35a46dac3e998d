// Black-Scholes call and put prices with the polynomial normal CDF.
__device__ __forceinline__ float cnd(float d)
{
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = 0.3989422804f * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void blackscholes(float *call, float *put, const float *S, const float *X, const float *T, float r, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sq = sqrtf(T[i]);
    float d1 = (__logf(S[i] / X[i]) + (r + 0.5f * v * v) * T[i]) / (v * sq);
    float d2 = d1 - v * sq;
    float e = __expf(-r * T[i]);
    call[i] = S[i] * cnd(d1) - X[i] * e * cnd(d2);
    put[i] = X[i] * e * (1.0f - cnd(d2)) - S[i] * (1.0f - cnd(d1));
}
