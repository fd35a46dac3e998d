__global__ void tiny(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = p[i] * 2.0f + 1.0f; }
