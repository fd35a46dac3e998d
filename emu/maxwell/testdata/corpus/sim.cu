// Simulation and data-mining kernels in the style of the CUDA samples
// (n-body with shared tiles, Black-Scholes) and Rodinia (k-means
// assignment with the centres in constant memory).

// Accelerations of n bodies (x, y, z, mass) with softening eps2; tiles of
// blockDim.x bodies are staged in shared memory. n is a multiple of blockDim.x.
extern "C" __global__ void nbody_accel(const float4 *pos, float4 *acc, int n, float eps2)
{
	extern __shared__ float4 tile[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 p = pos[i];
	float ax = 0.0f, ay = 0.0f, az = 0.0f;
	for (int t = 0; t < n; t += blockDim.x) {
		tile[threadIdx.x] = pos[t + threadIdx.x];
		__syncthreads();
		for (int j = 0; j < blockDim.x; j++) {
			float4 q = tile[j];
			float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
			float d2 = dx * dx + dy * dy + dz * dz + eps2;
			float inv = rsqrtf(d2);
			float s = q.w * inv * inv * inv;
			ax += dx * s;
			ay += dy * s;
			az += dz * s;
		}
		__syncthreads();
	}
	acc[i] = make_float4(ax, ay, az, 0.0f);
}

#define KMAX 16
#define FMAX 8
__constant__ float centres[KMAX * FMAX];

// Assigns each point (features stored feature-major: f[k*npoints + i]) to
// its nearest centre; counts the changes of membership.
extern "C" __global__ void kmeans_assign(const float *f, int *membership, int *changes,
                                         int npoints, int nclusters, int nfeatures)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= npoints)
		return;
	int best = 0;
	float bestd = 3.4e38f;
	for (int c = 0; c < nclusters; c++) {
		float d = 0.0f;
		for (int k = 0; k < nfeatures; k++) {
			float diff = f[k * npoints + i] - centres[c * nfeatures + k];
			d += diff * diff;
		}
		if (d < bestd) {
			bestd = d;
			best = c;
		}
	}
	if (membership[i] != best) {
		membership[i] = best;
		atomicAdd(changes, 1);
	}
}

__device__ static float cnd(float d)
{
	const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
	const float rsqrt2pi = 0.39894228040143267793994605993438f;
	float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
	float c = rsqrt2pi * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
	return d > 0 ? 1.0f - c : c;
}

// European call and put prices (Black-Scholes), grid-stride.
extern "C" __global__ void black_scholes(float *call, float *put, const float *price, const float *strike,
                                         const float *years, float r, float v, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float s = price[i], x = strike[i], t = years[i];
		float sqrtt = sqrtf(t);
		float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrtt);
		float d2 = d1 - v * sqrtt;
		float c1 = cnd(d1), c2 = cnd(d2);
		float e = expf(-r * t);
		call[i] = s * c1 - x * e * c2;
		put[i] = x * e * (1.0f - c2) - s * (1.0f - c1);
	}
}
