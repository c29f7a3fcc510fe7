#include "bench/cpu/Peers.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

void tessera::bench::setOpenBlasThreads(int threads) { openblas_set_num_threads(threads); }

void tessera::bench::openBlasSgemm(const float *a, const float *b, float *c, int64_t m, int64_t n,
                                   int64_t k) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

void tessera::bench::plainLoopSoftmax(const float *in, float *out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float max = *std::max_element(x, x + cols), sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += y[c] = std::exp(x[c] - max);
    float inv = 1 / sum;
    for (int64_t c = 0; c < cols; ++c)
      y[c] *= inv;
  }
}

void tessera::bench::plainLoopLayerNorm(const float *x, const float *w, const float *b, float *y,
                                        int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = x + r * cols;
    float mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c)
      mean += row[c];
    mean /= cols;
    for (int64_t c = 0; c < cols; ++c)
      var += (row[c] - mean) * (row[c] - mean);
    float rstd = 1 / std::sqrt(var / cols + eps);
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = (row[c] - mean) * rstd * w[c] + b[c];
  }
}
