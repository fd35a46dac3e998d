// All-pairs n-body acceleration with softening, rsqrtf per pair.
__device__ float3 interact(float4 bi, float4 bj, float3 ai)
{
    float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
    float d2 = r.x * r.x + r.y * r.y + r.z * r.z + 1e-9f;
    float inv = rsqrtf(d2);
    float s = bj.w * inv * inv * inv;
    ai.x += r.x * s; ai.y += r.y * s; ai.z += r.z * s;
    return ai;
}

extern "C" __global__ void nbody_accel(const float4 *pos, float3 *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 me = pos[i];
    float3 a = make_float3(0, 0, 0);
    for (int j = 0; j < n; j++)
        a = interact(me, pos[j], a);
    acc[i] = a;
}
