extern "C" __global__ void surfk(cudaSurfaceObject_t s, cudaTextureObject_t tx, int w, int h, float *o) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float v; surf2Dread(&v, s, x * 4, y);
  float4 q = tex2D<float4>(tx, x + 0.5f, y + 0.5f);
  surf2Dwrite(v * 2.0f + q.x, s, x * 4, y);
  int iv; surf1Dread(&iv, s, x * 4); surf1Dwrite(iv + 1, s, x * 4);
  o[y * w + x] = q.y + q.z;
}
