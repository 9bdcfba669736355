// SPDX-License-Identifier: MIT
// Experiment harness for ONE shape (issue 18): W = 200 columns x H = 1e6 rows, row-major floats,
// transposed to 200 rows x 1e6 columns (out[c * H + r] = in[r * W + c]); 2 x 800 MB moved. The
// committed tile-40 reaches 0.889-0.893 of cudaMemcpy D2D here, a plain copy kernel 0.95; the
// target is >= 0.90 (aim 0.93). Not part of the product. Same method as transpose_shapes.cu:
// CUDA events, median of 20 after 3 warm-ups (WARM=n for more), ratio to cudaMemcpy D2D of the
// same bytes in the same run, bit-exact check against a host transpose. The H200 (sm_90) only.
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o tx2 transpose_skinny.cu
// Run:   ./tx2 [run|ncu] [NAME]  (ncu: one launch of each configuration whose name contains NAME)
//
// Idea: with W = 200, R consecutive input rows are ONE contiguous chunk of R * 800 bytes, so a
// block can fetch a whole row group with the bulk-copy engine (TMA) into shared memory and spend
// its warps only on the writes: each output row c gets an R-float segment (128-byte aligned,
// H % 32 == 0). Every "pipe" configuration is one kernel, pipeK: warp NC (one lane) is the
// producer issuing the loads, warps 0..NC-1 consume (mbarrier per stage, "full" completes on the
// bytes, "empty" on NC warp arrivals). Non-persistent: grid = row groups, one stage. Persistent
// ("p" names): grid = SMs x resident blocks, S stages, so the next groups' loads overlap the
// current group's writes.
//
// Configurations (name: what):
//   copy-v4            row-major 16-byte copy kernel, the in-run ceiling (checked against input)
//   ref-tile40         the committed tile-40 (40 x 64 tiles, 128 threads, 10 blocks/SM), calibration
//   b1d-RN-naive       bulk 1-D load of N rows; warp = 32 rows of one column: 8-way bank conflicts
//                      (row pitch 200 words, 200 % 32 = 8), the "do conflicts matter" row
//   b1d-RN-rot         same load; warp = 8 columns x 32 rows, lane l reads column (j + l/4) % 8 in
//                      step j (conflict-free: bank = 8 (l % 4) + that column), a 3-stage register
//                      barrel rotation by l/4, then 8 fully coalesced 128-byte stores
//   b1d-R64-v4         same load; lane = 4 consecutive rows of one column, 16-byte stores (2 per
//                      task), conflict-free loads with a 2-bit rotation
//   t2d-RN-rot         2-D TMA tensor map over the input, 7 boxes of 32 cols x N rows per group,
//                      SWIZZLE_128B (the 7th box is 24/32 out of bounds, zero-filled, never
//                      written); warp = 4 columns x 32 rows, conflict-free with a 2-bit rotation
//   pb1d-RN-SK-...     persistent, K stages (w16: 16 consumer warps), ef: L2 evict_first hint on
//                      the input (read once), v4: the 16-byte-store consumer
//   pt2d-R64-S3-rot-w16 persistent 2-D TMA loads (the four t2d rows run last: see the list)
//   *-tst              the consumers transpose into a second shared buffer [200][R] (conflict-free)
//                      and one thread writes the whole group with ONE 2-D TMA store (box R x 200)
//                      over an output tensor map (no SM store instructions at all)
//   pbulkcopy-R64-S3   diagnostic, not a transpose: bulk load + bulk store of the same rows
//                      (what the bulk engine alone reaches both ways; checked against input)
//
// Prediction (before any measurement): a persistent bulk-1-D kernel with conflict-free rotated
// reads (pb1d-R64-S4-rot-w16 or pb1d-R64-S2-rot) wins at ~0.92-0.93: the reads become long
// sequential bulk streams with 100-200 KB per SM in flight regardless of registers, and the
// writes stay full 128-byte lines in a narrow moving window of the 200 output rows. The naive
// mapping should lose 3-6 % to the 8-way conflicts; the TMA store is a coin flip (fewer
// instructions, but a 200-row box may serialise on the TMA unit); R = 128 non-persistent should
// suffer from only 2 blocks per SM with no overlap. The tma2d rows pay 12 % more shared memory for
// the out-of-bounds box and should trail the 1-D loads slightly.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));             \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

constexpr int kW = 200;    // columns (floats per input row)
constexpr int kBoxes = 7;  // 32-column TMA boxes over 200 columns (the last one 8 wide)

// ---- PTX helpers (sm_90) --------------------------------------------------------------------
__device__ __forceinline__ uint32_t smemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarInit(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// Orders this thread's generic shared-memory accesses against later async-proxy (TMA) ones.
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void mbarExpectTx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddr(bar)) : "memory");
}
// Waits until the phase with this parity has completed. A lost phase would hang the process, so
// after ~6.7e7 polls (seconds) the kernel traps: the harness then reports the error instead.
__device__ __forceinline__ void mbarWait(uint64_t* bar, uint32_t parity) {
  const uint32_t a = smemAddr(bar);
  for (uint32_t spins = 0;; ++spins) {
    uint32_t done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(a), "r"(parity)
        : "memory");
    if (done) return;
    if (spins > (1u << 26)) __trap();
  }
}
__device__ __forceinline__ uint64_t evictFirstPolicy() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// 1-D bulk copy global -> shared (16-byte aligned, size a multiple of 16), completes on `bar`.
template <bool EF>
__device__ __forceinline__ void bulkLoad(void* dst, const void* src, uint32_t bytes, uint64_t* bar,
                                         uint64_t policy) {
  if (EF)
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
        " [%0], [%1], %2, [%3], %4;" ::"r"(smemAddr(dst)),
        "l"(src), "r"(bytes), "r"(smemAddr(bar)), "l"(policy)
        : "memory");
  else
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(smemAddr(dst)),
        "l"(src), "r"(bytes), "r"(smemAddr(bar))
        : "memory");
}
__device__ __forceinline__ void bulkStore(void* dst, const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
               "r"(smemAddr(src)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void tmaLoad2d(void* dst, const CUtensorMap* map, int c0, int c1,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(smemAddr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(smemAddr(bar))
      : "memory");
}
__device__ __forceinline__ void tmaStore2d(const CUtensorMap* map, const void* src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::
                   "l"(reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(smemAddr(src))
               : "memory");
}
__device__ __forceinline__ void bulkCommit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// At most N of this thread's bulk groups still reading shared memory.
template <int N>
__device__ __forceinline__ void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulkWaitAll() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void namedSync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Afterwards v[m] = (old v)[(m - q) mod N]: a barrel rotation by q (0 <= q < N, N a power of 2),
// log2 N stages of selects; no dynamic register indexing (which would go to local memory).
template <int N>
__device__ __forceinline__ void rotate(uint32_t (&v)[N], int q) {
#pragma unroll
  for (int b = 1; b < N; b <<= 1) {
    const bool on = (q & b) != 0;
    uint32_t t[N];
#pragma unroll
    for (int m = 0; m < N; ++m) t[m] = on ? v[(m - b + N) % N] : v[m];
#pragma unroll
    for (int m = 0; m < N; ++m) v[m] = t[m];
  }
}

// ---- the pipelined bulk / TMA kernel ----------------------------------------------------------
enum Load { kBulk = 0, kTma2d = 1 };
enum Store { kNaive = 0, kRot = 1, kV4 = 2, kTmaSt = 3, kCopy = 4 };

template <int LOAD, int STORE, int R, int S, int SO>
struct Geo {
  // one stage: R rows x 200 words (bulk), or 7 swizzled boxes of R rows x 32 words (tma2d)
  static constexpr int kStage = LOAD == kBulk ? R * kW * 4 : kBoxes * R * 32 * 4;
  static constexpr int kOut = STORE == kTmaSt ? R * kW * 4 : 0;  // [200][R] words
  static constexpr int kAlign = LOAD == kTma2d ? 1024 : 128;      // 128B swizzle: 1024-B atoms
  static constexpr int kBytes = S * kStage + SO * kOut + kAlign;  // + slack to align the base
};

// LOAD/STORE: see the enums; R rows per group; NC consumer warps (+1 producer warp); S load stages;
// SO output staging buffers (kTmaSt); MINB blocks per SM for the register cap; EF evict_first.
template <int LOAD, int STORE, int R, int NC, int S, int SO, int MINB, bool EF>
__global__ void __launch_bounds__(32 * (NC + 1), MINB)
    pipeK(const float* __restrict__ in, float* __restrict__ out, int H, int ngroups,
          const __grid_constant__ CUtensorMap tin, const __grid_constant__ CUtensorMap tout) {
  using G = Geo<LOAD, STORE, R, S, SO>;
  constexpr int KC = R / 32;  // 32-row chunks per group
  static_assert(R % 32 == 0 && R <= 256, "R: a multiple of 32, at most 256 (TMA box)");
  static_assert(LOAD == kBulk || STORE == kRot || STORE == kTmaSt, "tma2d: rot or tst consumers");
  static_assert(STORE != kCopy || (NC == 1 && LOAD == kBulk), "bulk copy: one consumer warp");
  static_assert(STORE != kTmaSt || SO >= 1, "");
  static_assert(R * kW * 4 < (1 << 20) && G::kStage < (1 << 20), "mbarrier tx-count limit");
  extern __shared__ unsigned char dsm[];
  __shared__ __align__(8) uint64_t full[S], empty[S];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(dsm) + G::kAlign - 1) & ~uintptr_t(G::kAlign - 1));
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  if (tid == 0) {
    for (int s = 0; s < S; ++s) {
      mbarInit(&full[s], 1);
      mbarInit(&empty[s], NC);
    }
    fenceBarrierInit();
  }
  __syncthreads();  // the only block-wide barrier

  if (warp == NC) {  // ---- producer: one lane
    if (lane != 0) return;
    const uint64_t policy = EF ? evictFirstPolicy() : 0;
    for (int i = 0, g = blockIdx.x; g < ngroups; ++i, g += gridDim.x) {
      const int st = i % S;
      if (i >= S) mbarWait(&empty[st], (i / S - 1) & 1);  // consumers released use i - S
      const int y0 = g * R, n = min(R, H - y0);
      unsigned char* buf = base + st * G::kStage;
      if (LOAD == kBulk) {
        mbarExpectTx(&full[st], n * kW * 4);
        bulkLoad<EF>(buf, in + (size_t)y0 * kW, n * kW * 4, &full[st], policy);
      } else {  // full boxes count, out-of-bounds parts included (zero-filled)
        mbarExpectTx(&full[st], kBoxes * R * 32 * 4);
        for (int b = 0; b < kBoxes; ++b) tmaLoad2d(buf + b * R * 32 * 4, &tin, 32 * b, y0, &full[st]);
      }
    }
    return;
  }

  // ---- consumers: warps 0..NC-1
  uint32_t* outU = reinterpret_cast<uint32_t*>(out);
  int rot = 0;  // task t of a group goes to warp (t + rot) % NC: balanced over groups
  for (int i = 0, g = blockIdx.x; g < ngroups; ++i, g += gridDim.x) {
    const int st = i % S;
    mbarWait(&full[st], (i / S) & 1);
    const int y0 = g * R, n = min(R, H - y0);
    const uint32_t* sIn = reinterpret_cast<const uint32_t*>(base + st * G::kStage);
    uint32_t* sOut = nullptr;
    if constexpr (STORE == kTmaSt) {
      sOut = reinterpret_cast<uint32_t*>(base + S * G::kStage + (i % SO) * G::kOut);
      if (tid == 0) bulkWaitRead<SO - 1>();  // the store of use i - SO has read this buffer
      namedSync(1, 32 * NC);
    }
    if constexpr (STORE == kCopy) {
      if (lane == 0) {
        bulkStore(outU + (size_t)y0 * kW, sIn, n * kW * 4);
        bulkCommit();
        bulkWaitRead<0>();  // the stage is read before it is released
      }
    } else {
      constexpr int T = (STORE == kNaive ? kW : LOAD == kBulk ? kW / 8 : kW / 4) * KC;
      int t = warp - rot;
      if (t < 0) t += NC;
#pragma unroll 1
      for (; t < T; t += NC) {
        const int k = t % KC, r = 32 * k + lane;  // row within the group (r >= n: not written)
        if constexpr (STORE == kNaive) {
          const int c = t / KC;
          const uint32_t v = sIn[r * kW + c];  // banks 8 r + c: 8-way conflict
          if (r < n) outU[c * H + y0 + r] = v;
        } else if constexpr (STORE == kV4) {
          const int col = 8 * (t / KC) + (lane >> 2), p = lane & 3;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int rb = 32 * k + 16 * h + 4 * p;  // this lane's 4 rows rb .. rb + 3
            uint32_t v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) v[j] = sIn[(rb + ((j + p) & 3)) * kW + col];
            rotate<4>(v, p);  // v[m] = row rb + m
            uint32_t* dst = outU + col * H + y0 + rb;
            if (rb + 4 <= n) {
              *reinterpret_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
              for (int m = 0; m < 4; ++m)
                if (rb + m < n) dst[m] = v[m];
            }
          }
        } else if constexpr (LOAD == kBulk) {  // kRot / kTmaSt over the row-major stage
          const int cb = t / KC, q = lane >> 2;
          uint32_t v[8];
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] = sIn[r * kW + 8 * cb + ((j + q) & 7)];
          rotate<8>(v, q);  // v[m] = column 8 cb + m
          if constexpr (STORE == kTmaSt) {
#pragma unroll
            for (int m = 0; m < 8; ++m) sOut[(8 * cb + m) * R + r] = v[m];
          } else if (r < n) {
#pragma unroll
            for (int m = 0; m < 8; ++m) outU[(8 * cb + m) * H + y0 + r] = v[m];
          }
        } else {  // tma2d, swizzled boxes: word (r, cc) of a box at r*32 + ((cc/4 ^ r%8) * 4) + cc%4
          const int cq = t / KC, b = cq >> 3, X = cq & 7, q = lane >> 3;  // columns 4 cq .. + 3
          const uint32_t* row = sIn + b * R * 32 + r * 32 + ((X ^ (lane & 7)) << 2);
          uint32_t v[4];
#pragma unroll
          for (int j = 0; j < 4; ++j) v[j] = row[(j + q) & 3];
          rotate<4>(v, q);  // v[m] = column 4 cq + m
          if constexpr (STORE == kTmaSt) {
#pragma unroll
            for (int m = 0; m < 4; ++m) sOut[(4 * cq + m) * R + r] = v[m];
          } else if (r < n) {
#pragma unroll
            for (int m = 0; m < 4; ++m) outU[(4 * cq + m) * H + y0 + r] = v[m];
          }
        }
      }
      rot = (rot + T) % NC;
    }
    fenceProxyAsync();  // our reads of sIn (and writes of sOut) before the async proxy's next use
    __syncwarp();
    if (lane == 0) mbarArrive(&empty[st]);
    if constexpr (STORE == kTmaSt) {
      namedSync(1, 32 * NC);  // every consumer's sOut writes are done (and fenced)
      if (tid == 0) {
        tmaStore2d(&tout, sOut, y0, 0);  // columns y0 .. y0 + R - 1 of all 200 rows; clipped at H
        bulkCommit();
      }
    }
  }
  if constexpr (STORE == kTmaSt || STORE == kCopy)
    if (tid == 0) bulkWaitAll();
}

// ---- calibration: the committed tile-40 (transposeTile40Kernel, tile40Phase) ----------------
// 40 x 64 tiles, 128 threads, 20 elements per thread, pitch 65, 32-bit indices, grouped order with
// one stripe as wide as the matrix (tile column = bid % 5, tile row = bid / 5).
__global__ void __launch_bounds__(128, 10)
    refTile40(const float* __restrict__ in, float* __restrict__ out, int H) {
  constexpr int TW = 40, TH = 64, P = TH + 1, N = 128, L = TW * TH / N, GX = kW / TW;
  __shared__ float tile[TW * P];
  const int f = threadIdx.x, x0 = (blockIdx.x % GX) * TW, y0 = (blockIdx.x / GX) * TH;
  const bool interior = y0 + TH <= H;  // 200 = 5 x 40: columns always inside
  if (interior) {
    float v[L];
    const int b = y0 * kW + x0;
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = f + N * i, r = e / TW, c = e % TW;
      v[i] = in[b + r * kW + c];
    }
#pragma unroll
    for (int i = 0; i < L; ++i) {
      const int e = f + N * i, r = e / TW, c = e % TW;
      tile[c * P + r] = v[i];
    }
  } else {
    for (int i = 0; i < L; ++i) {
      const int e = f + N * i, r = e / TW, c = e % TW;
      if (y0 + r < H) tile[c * P + r] = in[(y0 + r) * kW + x0 + c];
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < L; ++i) {
    const int e = f + N * i, c = e / TH, r = e % TH;
    if (interior || y0 + r < H) out[(x0 + c) * H + y0 + r] = tile[c * P + r];
  }
}

// ---- ceiling: row-major copy, 16-byte accesses, 4 per thread ----
__global__ void __launch_bounds__(256) copyV4(const uint4* __restrict__ in, uint4* __restrict__ out,
                                              int n4) {
  const int b = blockIdx.x * 1024 + threadIdx.x;
  uint4 v[4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (b + 256 * i < n4) v[i] = in[b + 256 * i];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (b + 256 * i < n4) out[b + 256 * i] = v[i];
}

// ---- host --------------------------------------------------------------------------------------
enum Kind { kRef, kCopyKernel, kPipe };
struct Cfg {
  std::string name;
  Kind kind;
  const void* fn;
  int threads;
  size_t smem;      // dynamic shared memory (pipe)
  bool persistent;  // grid = SMs x resident blocks (else one block per row group)
  int R;
  bool tin, tout;  // needs the input / output tensor map
  bool isCopy;     // result compared with the input (not a transpose)
};

#define PIPE(NAME, LOAD, STORE, R, NC, S, SO, MINB, EF, PERS)                                      \
  Cfg{NAME, kPipe, (const void*)pipeK<LOAD, STORE, R, NC, S, SO, MINB, EF>, 32 * ((NC) + 1),       \
      (size_t)Geo<LOAD, STORE, R, S, SO>::kBytes, PERS, R, (LOAD) == kTma2d, (STORE) == kTmaSt,   \
      (STORE) == kCopy}

static double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static PFN_cuTensorMapEncodeTiled_v12000 encodeFn() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (fn) return fn;
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !p) {
    std::printf("cuTensorMapEncodeTiled not found (query result %d)\n", (int)q);
    return nullptr;
  }
  fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  return fn;
}

// 2-D map over a row-major matrix of `rows` x `cols` 32-bit words; box boxCols x boxRows.
static bool makeMap(CUtensorMap* m, void* ptr, long long cols, long long rows, int boxCols,
                    int boxRows, CUtensorMapSwizzle swz, std::string* why) {
  auto enc = encodeFn();
  if (!enc) {
    *why = "no cuTensorMapEncodeTiled";
    return false;
  }
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  const cuuint64_t strides[1] = {(cuuint64_t)cols * 4};
  const cuuint32_t box[2] = {(cuuint32_t)boxCols, (cuuint32_t)boxRows};
  const cuuint32_t es[2] = {1, 1};
  const CUresult r = enc(m, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, ptr, dims, strides, box, es,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    *why = "cuTensorMapEncodeTiled error " + std::to_string((int)r);
    return false;
  }
  return true;
}

int main(int argc, char** argv) {
  const bool ncuMode = argc > 1 && std::string(argv[1]) == "ncu";
  const std::string only = argc > 2 ? argv[2] : "";
  const int W = kW, H = 1000000;
  const long long n = (long long)W * H;
  const size_t bytes = (size_t)n * 4;
  static_assert(kW % 40 == 0 && kW % 8 == 0 && kW % 4 == 0, "");
  if (H % 32 != 0) std::printf("note: H %% 32 != 0, output pieces are not 128-byte aligned\n");

  std::vector<Cfg> cfgs = {
      Cfg{"copy-v4", kCopyKernel, (const void*)copyV4, 256, 0, false, 0, false, false, true},
      Cfg{"ref-tile40", kRef, (const void*)refTile40, 128, 0, false, 0, false, false, false},
      // non-persistent: one block per row group, one stage
      PIPE("b1d-R32-naive", kBulk, kNaive, 32, 8, 1, 0, 7, false, false),
      PIPE("b1d-R32-rot", kBulk, kRot, 32, 8, 1, 0, 7, false, false),
      PIPE("b1d-R64-naive", kBulk, kNaive, 64, 8, 1, 0, 4, false, false),
      PIPE("b1d-R64-rot", kBulk, kRot, 64, 8, 1, 0, 4, false, false),
      PIPE("b1d-R64-v4", kBulk, kV4, 64, 8, 1, 0, 4, false, false),
      PIPE("b1d-R128-rot", kBulk, kRot, 128, 8, 1, 0, 2, false, false),
      // persistent, multi-stage
      PIPE("pb1d-R32-S4-rot", kBulk, kRot, 32, 8, 4, 0, 2, false, true),
      PIPE("pb1d-R64-S2-rot", kBulk, kRot, 64, 8, 2, 0, 2, false, true),
      PIPE("pb1d-R64-S4-rot-w16", kBulk, kRot, 64, 16, 4, 0, 1, false, true),
      PIPE("pb1d-R64-S4-rot-w16-ef", kBulk, kRot, 64, 16, 4, 0, 1, true, true),
      PIPE("pb1d-R64-S2-v4", kBulk, kV4, 64, 8, 2, 0, 2, false, true),
      PIPE("pb1d-R128-S2-rot-w16", kBulk, kRot, 128, 16, 2, 0, 1, false, true),
      // diagnostic: the bulk engine both ways, no transpose
      PIPE("pbulkcopy-R64-S3", kBulk, kCopy, 64, 1, 3, 0, 1, false, true),
      // persistent, TMA store of the whole transposed group
      PIPE("pb1d-R64-S2-tst-w16", kBulk, kTmaSt, 64, 16, 2, 2, 1, false, true),
      PIPE("pb1d-R32-S2-tst", kBulk, kTmaSt, 32, 8, 2, 2, 2, false, true),
      // 2-D tensor-map loads last: they rest on the swizzle and out-of-bounds tx-count assumptions,
      // and a kernel fault (or the mbarrier watchdog's trap) ends the run
      PIPE("t2d-R32-rot", kTma2d, kRot, 32, 8, 1, 0, 7, false, false),
      PIPE("t2d-R64-rot", kTma2d, kRot, 64, 8, 1, 0, 3, false, false),
      PIPE("pt2d-R64-S3-rot-w16", kTma2d, kRot, 64, 16, 3, 0, 1, false, true),
      PIPE("pt2d-R32-S2-tst", kTma2d, kTmaSt, 32, 8, 2, 2, 2, false, true),
  };

  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device %s, %d SMs, sm_%d%d; %d x %d floats\n", prop.name, sms, prop.major,
              prop.minor, W, H);

  std::vector<uint32_t> hin(n), want(n), got(n);
  for (long long i = 0; i < n; ++i) hin[i] = (uint32_t)(i * 2654435761u) ^ 0x5a5a0000u;
  for (int y0 = 0; y0 < H; y0 += 256)  // blocked host transpose
    for (int x = 0; x < W; ++x)
      for (int y = y0; y < std::min(H, y0 + 256); ++y)
        want[(size_t)x * H + y] = hin[(size_t)y * W + x];

  float *din, *dout;
  CK(cudaMalloc(&din, bytes));
  CK(cudaMalloc(&dout, bytes));
  CK(cudaMemcpy(din, hin.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const int warm = ncuMode ? 0 : (std::getenv("WARM") ? std::atoi(std::getenv("WARM")) : 3);
  const int reps = ncuMode ? 1 : 20;
  std::vector<float> ms;
  for (int i = 0; i < warm + reps; ++i) {
    CK(cudaEventRecord(a));
    CK(cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    if (i >= warm) ms.push_back(t);
  }
  const double memcpyMs = median(ms);
  std::printf("cudaMemcpy D2D %.4f ms (%.0f GB/s)\n", memcpyMs, 2.0 * bytes / memcpyMs / 1e6);

  for (const Cfg& c : cfgs) {
    if (!only.empty() && c.name.find(only) == std::string::npos) continue;
    std::string why;
    int grid = 0, occ = 0;
    CUtensorMap tin, tout;
    std::memset(&tin, 0, sizeof tin);
    std::memset(&tout, 0, sizeof tout);
    int ngroups = 0;
    const int n4 = (int)(n / 4);
    if (c.kind == kPipe) {
      ngroups = (H + c.R - 1) / c.R;
      cudaError_t e = cudaFuncSetAttribute(c.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)c.smem);
      if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.fn, c.threads, c.smem);
      if (e != cudaSuccess) why = cudaGetErrorString(e);
      else if (occ == 0) why = "0 blocks fit on an SM";
      if (why.empty() && c.tin)  // 32 columns x R rows, 128-byte swizzle
        makeMap(&tin, din, W, H, 32, c.R, CU_TENSOR_MAP_SWIZZLE_128B, &why);
      if (why.empty() && c.tout)  // the output: H columns x 200 rows; box R x 200
        makeMap(&tout, dout, H, W, c.R, W, CU_TENSOR_MAP_SWIZZLE_NONE, &why);
      grid = c.persistent ? std::min(ngroups, sms * occ) : ngroups;
    } else if (c.kind == kRef) {
      grid = (W / 40) * ((H + 63) / 64);
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.fn, c.threads, 0));
    } else {
      grid = (n4 + 1023) / 1024;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.fn, c.threads, 0));
    }
    cudaFuncAttributes fa;
    std::memset(&fa, 0, sizeof fa);
    if (why.empty()) CK(cudaFuncGetAttributes(&fa, c.fn));
    if (!why.empty()) {
      cudaGetLastError();  // clear a non-sticky error
      std::printf("%-24s FAIL (setup: %s)\n", c.name.c_str(), why.c_str());
      continue;
    }
    const float* cin = din;
    float* cout = dout;
    int h = H;
    void* pipeArgs[] = {(void*)&cin, (void*)&cout, (void*)&h, (void*)&ngroups, (void*)&tin, (void*)&tout};
    void* refArgs[] = {(void*)&cin, (void*)&cout, (void*)&h};
    const uint4* in4 = reinterpret_cast<const uint4*>(din);
    uint4* out4 = reinterpret_cast<uint4*>(dout);
    void* copyArgs[] = {(void*)&in4, (void*)&out4, (void*)&n4};
    void** args = c.kind == kPipe ? pipeArgs : c.kind == kRef ? refArgs : copyArgs;

    CK(cudaMemset(dout, 0xFF, bytes));
    CK(cudaDeviceSynchronize());
    ms.clear();
    bool launched = true;
    for (int i = 0; i < warm + reps; ++i) {
      CK(cudaEventRecord(a));
      cudaError_t e = cudaLaunchKernel(c.fn, dim3(grid), dim3(c.threads), args, c.smem, 0);
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess) {
        std::printf("%-24s FAIL (launch: %s)\n", c.name.c_str(), cudaGetErrorString(e));
        cudaGetLastError();
        launched = false;
        break;
      }
      CK(cudaEventRecord(b));
      e = cudaEventSynchronize(b);
      if (e != cudaSuccess) {  // a fault in the kernel: the context is gone, stop here
        std::printf("%-24s FAIL (run: %s); the remaining configurations cannot run\n",
                    c.name.c_str(), cudaGetErrorString(e));
        return 1;
      }
      float t;
      CK(cudaEventElapsedTime(&t, a, b));
      if (i >= warm) ms.push_back(t);
    }
    if (!launched) {
      CK(cudaDeviceSynchronize());
      continue;
    }
    CK(cudaMemcpy(got.data(), dout, bytes, cudaMemcpyDeviceToHost));
    const std::vector<uint32_t>& ref = c.isCopy ? hin : want;
    const bool ok = std::memcmp(got.data(), ref.data(), bytes) == 0;
    const double k = median(ms);
    std::printf("%-24s %.4f ms  ratio %.3f  min %.4f max %.4f  %s  [grid %d, %d blk/SM, %d thr, "
                "%d regs, %d B local, %zu B dyn smem]\n",
                c.name.c_str(), k, memcpyMs / k, *std::min_element(ms.begin(), ms.end()),
                *std::max_element(ms.begin(), ms.end()), ok ? "OK" : "FAIL", grid, occ, c.threads,
                fa.numRegs, (int)fa.localSizeBytes, c.smem);
    if (!ok) {
      long long bad = 0, first = -1;
      for (long long i = 0; i < n; ++i)
        if (got[i] != ref[i]) {
          if (first < 0) first = i;
          ++bad;
        }
      if (c.isCopy)
        std::printf("    %lld words differ; first at %lld: got %08x want %08x\n", bad, first,
                    got[first], ref[first]);
      else
        std::printf("    %lld words differ; first at out row %lld col %lld: got %08x want %08x\n",
                    bad, first / H, first % H, got[first], ref[first]);
    }
  }
  CK(cudaFree(din));
  CK(cudaFree(dout));
  return 0;
}
