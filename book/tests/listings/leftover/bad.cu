// Test data for book/tools/make_listings.py: a probe call it cannot drop (split over two lines).
//! [kernel]
__global__ void BadKernel(float* input) {
  probe.combine(true,
                0, 1);
}
//! [kernel]
