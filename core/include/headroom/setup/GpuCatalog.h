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
    bool custom = false; ///< user-defined

    friend bool operator==(const Gpu&, const Gpu&) = default;
};

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
