// Test data for book/tools/make_listings.py (not a real kernel): instrumentation in each form it drops.
//! [kernel]
__global__ void DemoKernel(float* input, float* output, unsigned int n) {
  const unsigned int i = threadIdx.x;
  if (i < n) output[i] = input[i];
}

template <class Operator>
__device__ float demo_reduce(Operator op, float value) {
  return value;
}

template <class Operator>
__global__ void DemoWideKernel(const float* input, float* output, std::size_t n, Operator op) {
  output[0] = demo_reduce(op, input[0]);
}

__global__ void DemoOneLaunchKernel(const float* input, float* output) {
  output[0] = demo_reduce(Sum{}, input[0]);
}
//! [kernel]

//! [launcher]
void launch(const Args& a) {
  DemoKernel<<<1, 32>>>(a.input, a.output, a.n);
}
//! [launcher]
