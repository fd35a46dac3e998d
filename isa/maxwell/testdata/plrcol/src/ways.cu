// -plr way rules: a forward branch's way that reaches the target keeps the
// target's registers live through writes; one that leaves does not; a
// loop whose body has no label keeps its head's registers live throughout.
__device__ __noinline__ int sum_arr(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i & 4095];
	return s;
}

extern "C" __global__ void ways(int *out, const int *a, int n, float x)
{
	int t = threadIdx.x;
	int v = a[t];
	if (v > n) {
		v = a[t + 1] * 3;
		if (v == 7) {
			out[1] = v;
			return;
		}
	}
	out[t] = v + sum_arr(a, n);
	float y = x;
	if (t & 1) {
		y = 1.0f / x;
		if (y > 2.0f)
			y = sqrtf(y);
	}
	out[t + 64] = __float_as_int(y);
}
