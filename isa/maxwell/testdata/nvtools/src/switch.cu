// Dense switches (jump tables: BRX) and calls through a table of device
// function pointers (indirect CAL).
__device__ __noinline__ int f0(int x) { return x + 1; }
__device__ __noinline__ int f1(int x) { return x * 3; }
__device__ __noinline__ int f2(int x) { return x ^ 0x55; }
__device__ __noinline__ int f3(int x) { return x >> 2; }
typedef int (*fn)(int);
__device__ fn table[4] = {f0, f1, f2, f3};

extern "C" __global__ void jump(const int *op, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int v = out[t], r;
  switch (op[t] & 15) {
  case 0: r = v + 7; break;
  case 1: r = v * 13; break;
  case 2: r = v - 99; break;
  case 3: r = v << 3; break;
  case 4: r = v ^ 0x1234; break;
  case 5: r = v | 0x800; break;
  case 6: r = v & 0xff; break;
  case 7: r = -v; break;
  case 8: r = v / 3; break;
  case 9: r = v % 7; break;
  case 10: r = __popc(v); break;
  case 11: r = __clz(v); break;
  default: r = 0;
  }
  out[t] = r + table[v & 3](r);
}
