// Stencils in the style of PolyBench/GPU (Jacobi 2D, two kernels a step),
// Parboil's 7-point 3D stencil (a 2D block marching in z with the column in
// registers) and Rodinia's HotSpot (a temperature step with shared tiles).

// One Jacobi step: b = average of a's 5-point cross on the interior.
extern "C" __global__ void jacobi2d_step(const float *a, float *b, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
		b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}

// Copies the interior back (PolyBench's second kernel).
extern "C" __global__ void jacobi2d_copy(float *a, const float *b, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
		a[i * n + j] = b[i * n + j];
}

#define IDX3(x, y, z) ((x) + nx * ((y) + ny * (z)))

// out = c0*center + c1*(sum of the 6 neighbours) on the interior of an
// nx x ny x nz grid; each thread walks z keeping below/center/above in registers.
extern "C" __global__ void stencil7(float c0, float c1, const float *in, float *out, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
		return;
	float below = in[IDX3(x, y, 0)];
	float center = in[IDX3(x, y, 1)];
	for (int z = 1; z < nz - 1; z++) {
		float above = in[IDX3(x, y, z + 1)];
		out[IDX3(x, y, z)] = c1 * (below + above + in[IDX3(x - 1, y, z)] + in[IDX3(x + 1, y, z)] +
		                           in[IDX3(x, y - 1, z)] + in[IDX3(x, y + 1, z)]) - c0 * center;
		below = center;
		center = above;
	}
}

#define HS 16

// One HotSpot-like step on an n x n grid (edges clamp): the block loads its
// 16x16 tile plus a halo into shared memory, then
// t' = t + k*(power + (tN + tS - 2t)*ry + (tE + tW - 2t)*rx + (amb - t)*rz).
extern "C" __global__ void hotspot_step(const float *power, const float *tin, float *tout,
                                        int n, float k, float rx, float ry, float rz, float amb)
{
	__shared__ float t[HS + 2][HS + 2];
	int tx = threadIdx.x, ty = threadIdx.y;
	int gx = blockIdx.x * HS + tx, gy = blockIdx.y * HS + ty;
	// the tile and its halo: 18x18 cells loaded by 16x16 threads
	for (int s = ty * HS + tx; s < (HS + 2) * (HS + 2); s += HS * HS) {
		int ly = s / (HS + 2), lx = s % (HS + 2);
		int cy = min(max((int)blockIdx.y * HS + ly - 1, 0), n - 1);
		int cx = min(max((int)blockIdx.x * HS + lx - 1, 0), n - 1);
		t[ly][lx] = tin[cy * n + cx];
	}
	__syncthreads();
	if (gx < n && gy < n) {
		float c = t[ty + 1][tx + 1];
		float d = power[gy * n + gx] + (t[ty][tx + 1] + t[ty + 2][tx + 1] - 2.0f * c) * ry +
		          (t[ty + 1][tx + 2] + t[ty + 1][tx] - 2.0f * c) * rx + (amb - c) * rz;
		tout[gy * n + gx] = c + k * d;
	}
}
