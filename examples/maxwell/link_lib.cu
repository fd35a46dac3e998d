// combine(a, b) = 3a - b, linked with link_main.cu's kernel.
__device__ __noinline__ int combine(int a, int b) { return 3 * a - b; }
