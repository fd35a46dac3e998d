// Texture references (the legacy API), texture and surface objects, gathers,
// level-of-detail and 3D fetches.
texture<float, 1, cudaReadModeElementType> lin;
texture<float4, 2, cudaReadModeElementType> img;

extern "C" __global__ void texref(float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h) return;
  float4 p = tex2D(img, x + 0.5f, y + 0.5f);
  out[y * w + x] = tex1Dfetch(lin, x) + p.x * p.w;
}

extern "C" __global__ void texobj(cudaTextureObject_t t2, cudaTextureObject_t t3, cudaSurfaceObject_t s, float *out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float4 g = tex2Dgather<float4>(t2, x * 0.5f, 0.25f, 1);
  float l = tex2DLod<float>(t2, x * 0.5f, 0.5f, 2.0f);
  float v = tex3D<float>(t3, x, 1.5f, 2.5f);
  float q = tex2DGrad<float>(t2, x, 1.0f, make_float2(1, 0), make_float2(0, 1));
  surf2Dwrite(g.x + g.y + l + v + q, s, x * 4, 0);
  if (x < w) out[x] = g.z + g.w;
}
