// No calls: a divergent if (SSY/SYNC) in a kernel whose name makes its
// .size line the longest line of the file.
extern "C" __global__ void kernel_name_that_is_long_enough_to_make_the_size_line_the_longest_line_of_the_file(int *out) { int v = out[threadIdx.x]; if (v > 3) { v = out[v] * 3 + out[v+1]; } out[threadIdx.x] = v; }
