#include "headroom/allocator/CudaRuntime.h"

namespace headroom {

namespace {
constexpr std::uint64_t MiB = 1024ULL * 1024ULL;
constexpr std::uint64_t MB = 1000ULL * 1000ULL;
} // namespace

std::uint64_t cublasWorkspaceBytes(ComputeCapability gpu, TorchVersion torch) noexcept
{
    // parseChosenWorkspaceSize(): ":4096:2:16:8" (4096 KiB x 2 + 16 KiB x 8), 32 MiB (":4096:8") for the
    // architectures cuBLAS recommends it for (https://docs.nvidia.com/cuda/cublas/#cublassetworkspace).
    const std::uint64_t standard = 4096ULL * 1024ULL * 2ULL + 16ULL * 1024ULL * 8ULL;
    const std::uint64_t large = 4096ULL * 1024ULL * 8ULL;
    if (torch < TorchVersion { 2, 0 })
        return 0; // before pytorch/pytorch#86167 (2.0) cuBLAS kept its own workspace, outside the allocator
    if (gpu.major == 9)
        return large;
    if (gpu.major >= 10)
        return torch >= TorchVersion { 2, 11 } || gpu.major > 12 ? large : standard;
    return standard;
}

std::uint64_t cublasLtWorkspaceBytes(TorchVersion torch) noexcept
{
    return torch >= TorchVersion { 2, 11 } ? 0 : 1024ULL * 1024ULL;
}

CudaContextEstimate cudaContextBytes(ComputeCapability gpu, bool lazyLoading) noexcept
{
    if (!lazyLoading) {
        // Every kernel image loaded at start: 721 MB on a GTX 1080 (torch 1.8 + CUDA 10.1) and 1,687 MB on
        // an RTX 3090 (CUDA 11.1), pytorch/pytorch#55277; over 1,000 MB (pytorch/pytorch#107667).
        if (gpu.major >= 8)
            return { 1700 * MB,
                "eager module loading, Ampere and later: 1,687 MB on an RTX 3090 (pytorch/pytorch#55277)" };
        return { 1024 * MiB,
            "eager module loading before Ampere: 721 MB on a GTX 1080 (pytorch/pytorch#55277), "
            "over 1,000 MB reported (pytorch/pytorch#107667); 1 GiB" };
    }
    if (gpu.major >= 9)
        // Measured: H100, driver 580, CUDA 13, PyTorch 2.11: 648,871,936 bytes after initialisation and
        // 718,077,952 after the first cuBLAS call (../shared/cuda-reference); cuDNN's kernels load later.
        return { 768 * MiB,
            "Hopper and later, lazy loading: 718 MB measured on an H100 after the first cuBLAS "
            "call (CUDA 13), rounded up to 768 MiB for the kernels loaded later" };
    // Published with lazy loading: 287 MB (PyTorch 1.13, pytorch/pytorch#86509), about 300-400 MB
    // (pytorch/pytorch#107667, #109888); none per generation. Erring high: 512 MiB.
    return { 512 * MiB,
        "before Hopper, lazy loading: 287-400 MB published (pytorch/pytorch#86509, #109888), "
        "no per-generation figure; 512 MiB" };
}

} // namespace headroom
