#pragma once

// What the CUDA runtime and PyTorch's math libraries take beyond the tensors a training step makes, each
// from its source (docs/memory-model.md, "Workspaces and the CUDA context"): the cuBLAS workspaces that
// go through the caching allocator, and the CUDA context that lives outside it.

#include <cstdint>
#include <string_view>

namespace headroom {

/// A GPU's CUDA compute capability (major.minor): 6.1 for a GTX 1080, 8.0 for an A100, 9.0 for an H100.
struct ComputeCapability final
{
    int major = 9;
    int minor = 0;
    friend bool operator==(const ComputeCapability&, const ComputeCapability&) = default;
};

/// A PyTorch release, major.minor.
struct TorchVersion final
{
    int major = 2;
    int minor = 11;
    friend auto operator<=>(const TorchVersion&, const TorchVersion&) = default;
};

/// The cuBLAS workspace PyTorch allocates through the caching allocator, once per (cuBLAS handle, stream),
/// at the first cuBLAS call on a thread, and keeps for the process: getChosenWorkspaceSize() in
/// aten/src/ATen/cuda/CublasHandlePool.cpp (parseChosenWorkspaceSize: the default of
/// CUBLAS_WORKSPACE_CONFIG). Before 2.0 cuBLAS kept its own workspace outside the allocator (0 here;
/// pytorch/pytorch#86167). PyTorch 2.0 and later: ":4096:2:16:8" = 2 x 4 MiB + 8 x 16 KiB = 8,519,680 bytes,
/// and 32 MiB
/// (":4096:8") on Hopper (pytorch/pytorch#89027) and, from 2.11, on Blackwell (compute capability 10, 11,
/// 12; pytorch/pytorch#175344). cuBLASLt shares this workspace since 2.11 (TORCH_CUBLASLT_UNIFIED_WORKSPACE
/// on by default, pytorch/pytorch#168175); before, Lt allocated its own 1 MiB (CUBLASLT_WORKSPACE_SIZE,
/// pytorch/pytorch#73439), which cublasLtWorkspaceBytes() gives. Unknown future architectures: 32 MiB.
[[nodiscard]] std::uint64_t cublasWorkspaceBytes(ComputeCapability gpu, TorchVersion torch) noexcept;
/// The separate cuBLASLt workspace per (handle, stream): 0 where it is unified with cuBLAS's (2.11 and
/// later), 1 MiB before (parseCUDABlasLtWorkspaceSize's default), allocated at the first Lt matmul.
[[nodiscard]] std::uint64_t cublasLtWorkspaceBytes(TorchVersion torch) noexcept;

/// How many cuBLAS handles a training step uses, each with its own workspace: PyTorch's handle pool gives
/// each thread its own handle (DeviceThreadHandlePool::PoolWindow is thread_local), and backward runs on
/// autograd's device thread, so the forward pass (and optimizer) and backward each have one. Observed in
/// the H100 reference (../shared/cuda-reference): the first measured backward adds exactly 32 MiB that
/// stays allocated.
inline constexpr int kCublasHandlesPerTrainingStep = 2;

/// The CUDA context (driver state, kernel images of CUDA, cuBLAS and cuDNN) that the caching allocator does
/// not see, by GPU generation, with lazy module loading (CUDA 11.7+ and PyTorch 1.13+ set
/// CUDA_MODULE_LOADING=LAZY, pytorch/pytorch#86509) or eager loading. Errs high where no measurement is
/// published; `source` says which figure it used.
struct CudaContextEstimate final
{
    std::uint64_t bytes = 0;
    std::string_view source;
};
[[nodiscard]] CudaContextEstimate cudaContextBytes(ComputeCapability gpu, bool lazyLoading = true) noexcept;

} // namespace headroom
