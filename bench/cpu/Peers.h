// What a user would run instead of a Tessera kernel on the CPU: OpenBLAS's
// sgemm, memcpy of the same bytes, and plain C++ loops.
#ifndef TESSERA_BENCH_CPU_PEERS_H
#define TESSERA_BENCH_CPU_PEERS_H

#include <cstdint>

namespace tessera::bench {

/// OpenBLAS's own thread count (it keeps its own pool).
void setOpenBlasThreads(int threads);

/// c[m x n] = a[m x k] * b[k x n], row-major, with cblas_sgemm.
void openBlasSgemm(const float *a, const float *b, float *c, int64_t m, int64_t n, int64_t k);

/// Numerically stable softmax of each row, one thread, the loop a C++
/// programmer would write.
void plainLoopSoftmax(const float *in, float *out, int64_t rows, int64_t cols);

/// Layer normalization of each row with weight and bias, one thread.
void plainLoopLayerNorm(const float *x, const float *w, const float *b, float *y, int64_t rows,
                        int64_t cols, float eps);

} // namespace tessera::bench

#endif // TESSERA_BENCH_CPU_PEERS_H
