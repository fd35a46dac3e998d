// Kernels with bugs the sanitizer must report (gpuisa run -check): races,
// out-of-bounds accesses, reads of memory never written. Not part of the
// corpus of correct kernels.

// Every warp of a 32x8 block writes out[0..31]: indexing by threadIdx.x
// alone (a race between warps; the last writer wins on the hardware).
extern "C" __global__ void race_rows(int *out)
{
	out[threadIdx.x] = threadIdx.y;
}

// A shared-memory exchange without __syncthreads: thread t reads what
// thread t^32 (another warp) wrote.
extern "C" __global__ void race_shared(const int *in, int *out)
{
	__shared__ int s[64];
	s[threadIdx.x] = in[threadIdx.x];
	out[threadIdx.x] = s[threadIdx.x ^ 32];
}

// The same exchange with the barrier: no race.
extern "C" __global__ void synced_shared(const int *in, int *out)
{
	__shared__ int s[64];
	s[threadIdx.x] = in[threadIdx.x];
	__syncthreads();
	out[threadIdx.x] = s[threadIdx.x ^ 32];
}

// Every block writes the same word: blocks never synchronise.
extern "C" __global__ void race_blocks(int *out)
{
	if (threadIdx.x == 0)
		out[0] = blockIdx.x;
}

// An off-by-one loop bound: the last thread reads one element past in.
extern "C" __global__ void oob_read(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i <= n)
		out[i] = in[i] * 2.0f;
}

// A shared array indexed one past its end.
extern "C" __global__ void oob_shared(int *out)
{
	__shared__ int s[32];
	s[threadIdx.x + 1] = threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = s[threadIdx.x];
}

// Odd threads read a shared word only even threads wrote.
extern "C" __global__ void uninit_shared(int *out)
{
	__shared__ int s[32];
	if ((threadIdx.x & 1) == 0)
		s[threadIdx.x] = threadIdx.x;
	__syncthreads();
	out[threadIdx.x] = s[threadIdx.x | 1];
}

// A local array with its upper half never written, read at a
// thread-dependent index.
extern "C" __global__ void uninit_local(const int *in, int *out)
{
	int a[16];
	for (int k = 0; k < 8; k++)
		a[k] = in[k] + threadIdx.x;
	out[threadIdx.x] = a[(threadIdx.x * 3 + in[8]) & 15];
}
