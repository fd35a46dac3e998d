// Seeds for the fuzz targets: one kernel per feature that puts a kind of
// section or attribute into the cubin.
#include <cstdio>

__device__ int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};   // .nv.global.init
__device__ float scratch[64];                          // .nv.global
__constant__ float coef[32];                           // .nv.constant3
texture<float, 1, cudaReadModeElementType> texref;     // texture reference
surface<void, 2> surfref;                              // surface reference

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void __launch_bounds__(256, 2)
features(float *out, const int *in, int n, cudaTextureObject_t tobj, cudaSurfaceObject_t sobj)
{
    __shared__ float tile[64];
    extern __shared__ float dyn[];
    float local[16];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 16; k++) local[k] = in[(i + k) % n];
    float v;
    switch (in[i % n] & 15) { // a jump table: BRX and its targets
    case 0: v = 1.0f; break;
    case 1: v = local[in[i % n] & 15]; break;
    case 2: v = tex1Dfetch(texref, i); break;
    case 3: v = tex1Dfetch<float>(tobj, i); break;
    case 4: v = coef[i & 31]; break;
    case 5: v = (float)table[i & 7]; break;
    case 6: v = scratch[i & 63]; break;
    case 7: v = (float)fib(in[i % n] & 7); break;
    case 8: v = __shfl_down_sync(0xffffffff, local[3], 1); break;
    case 9: v = (float)atomicAdd((int *)&scratch[0], 1); break;
    case 10: { float s; surf2Dread(&s, surfref, 4 * (i & 7), 0); v = s; break; }
    case 11: { float s; surf2Dread(&s, sobj, 4 * (i & 7), 0); v = s; break; }
    default: v = -1.0f; printf("odd %d\n", i);
    }
    tile[threadIdx.x & 63] = v;
    dyn[threadIdx.x] = v * 2.0f;
    __syncthreads();
    if (i < n) {
        out[i] = tile[(threadIdx.x + 1) & 63] + dyn[(threadIdx.x + 3) % blockDim.x];
        surf2Dwrite(v, surfref, 4 * (i & 7), 1);
    }
    if (v > 1e30f) __trap();
}

extern __device__ int ext_fn(int);

extern "C" __global__ void callext(int *p) { p[threadIdx.x] = ext_fn(p[threadIdx.x]) + fib(3); }
