#pragma once

#include "headroom/support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One GPU model. Figures are the vendor's published specifications.
struct Gpu final
{
    std::string name; ///< "GeForce GTX 1080"
    std::string vendor; ///< "NVIDIA", "AMD"
    std::string family; ///< "GeForce 10 (Pascal)", "Data centre (Hopper)"
    std::vector<std::string> aliases; ///< other exact names: "GTX 1080", "RTX 4090"
    std::uint64_t memoryBytes = 0; ///< as the vendor states it: 8 GB of GDDR5X = 8 GiB
    double bandwidthGBps = 0; ///< memory bandwidth, GB/s
    double fp32Tflops = 0; ///< peak dense FP32
    double fp16Tflops = 0; ///< peak dense FP16 (tensor cores where present)
    double bf16Tflops = 0; ///< peak dense BF16; 0 = not supported
    /// GPU-to-GPU bandwidth to every other GPU of a node, GB/s each way: NVLink's per-GPU figure (H100
    /// SXM 900 GB/s both ways = 450), else the PCIe x16 rate (docs/throughput.md); 0 = unknown.
    double linkGBps = 0;
    int pcieGeneration = 0; ///< the host link, PCIe 3, 4 or 5; 0 = unknown
    bool custom = false; ///< user-defined

    friend bool operator==(const Gpu&, const Gpu&) = default;
};

/// PCIe x16's rate each way in GB/s for a generation from 1 to 6 (128b/130b coding from 3.0 on: 3.0
/// 15.75, 4.0 31.5, 5.0 63); 0 for any other.
[[nodiscard]] double pcieX16GBps(int generation) noexcept;

/// The memory a user-defined GPU may have, in GiB: from a quarter GiB (smaller cannot hold a CUDA
/// context) to 4 TiB, far above any accelerator made.
inline constexpr double kMinCustomGpuGiB = 0.25;
inline constexpr double kMaxCustomGpuGiB = 4096.0;

/// The GPU a plan is on when none is named: `headroom` without --gpu, and the GUI's first start.
inline constexpr std::string_view kDefaultGpuName = "GeForce GTX 1080";

/// The GPU catalogue: loaded from resources/gpus.json, plus user-defined GPUs.
class GpuCatalog final
{
public:
    GpuCatalog() = default;
    explicit GpuCatalog(std::vector<Gpu> gpus)
        : m_gpus { std::move(gpus) }
    {
    }

    /// Parses the catalogue's JSON; errors name the entry ("gpus[4].memory_bytes must be ...").
    [[nodiscard]] static Result<GpuCatalog> fromJson(std::string_view text);
    [[nodiscard]] static Result<GpuCatalog> fromFile(const std::string& path);

    [[nodiscard]] const std::vector<Gpu>& gpus() const noexcept { return m_gpus; }
    /// Finds a GPU by a case-insensitive query: an exact name or alias first, then the name without
    /// its brand word ("GTX 1080" for "GeForce GTX 1080"), then a unique substring. An ambiguous
    /// query's error lists the candidates; an unknown one suggests `headroom gpus`.
    [[nodiscard]] Result<Gpu> find(std::string_view query) const;
    /// find(kDefaultGpuName); without it the first GPU, and without any a custom GPU of 8 GiB.
    [[nodiscard]] Gpu defaultGpu() const;
    /// Adds (or replaces, by name) a user-defined GPU.
    void addCustom(Gpu gpu);

private:
    std::vector<Gpu> m_gpus;
};

} // namespace headroom
