// Test data for book/tools/make_listings.py (not a real kernel): instrumentation in each form it drops.
//! [kernel]
template <class Probe>
__global__ void DemoKernel(float* input, float* output, unsigned int n, Probe probe) {
  const unsigned int i = threadIdx.x;
  probe.combine(i < n, i, i + 1);
  probe.global_access(i < n, input + i);  // one load
  if (i < n) output[i] = input[i];
}

template <class Operator, class Probe>
__device__ float demo_reduce(Operator op, float value, Probe& probe) {
  probe.combine(true, 0, 1);
  return value;
}

template <class Operator, class Probe>
__global__ void DemoWideKernel(const float* input, float* output, std::size_t n, Operator op,
                               Probe probe) {
  output[0] = demo_reduce(op, input[0], probe);
}

__global__ void DemoOneLaunchKernel(const float* input, float* output) {
  NoProbe probe;
  output[0] = demo_reduce(Sum{}, input[0], probe);
}
//! [kernel]

//! [launcher]
void launch(const Args& a) {
  with_probe(a.probe, [&](auto probe) {
    DemoKernel<<<1, 32>>>(a.input, a.output, a.n, probe);
  });
}
//! [launcher]
