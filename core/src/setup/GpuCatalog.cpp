#include "headroom/setup/GpuCatalog.h"

#include "headroom/support/Format.h"
#include "support/JsonText.h"

#include <algorithm>
#include <cctype>

namespace headroom {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxCatalogBytes = 4ULL * 1024ULL * 1024ULL;
constexpr std::uint64_t kMaxPcieGeneration = 6;
/// Brand words a user may leave out: "GTX 1080" finds "GeForce GTX 1080".
constexpr std::array<std::string_view, 8> kBrandWords { "NVIDIA ", "AMD ", "GeForce ", "Radeon ", "Instinct ",
    "Tesla ", "Quadro ", "Intel " };

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string withoutBrand(std::string name)
{
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (const auto brand : kBrandWords) {
            if (lower(name).starts_with(lower(brand))) {
                name.erase(0, brand.size());
                stripped = true;
            }
        }
    }
    return name;
}

Result<double> number(const json& entry, const char* key, const std::string& path, bool required)
{
    const auto it = entry.find(key);
    if (it == entry.end()) {
        if (required)
            return Error { path + "." + key + " is required", path + "." + key };
        return 0.0;
    }
    if (!it->is_number() || it->get<double>() < 0)
        return Error { path + "." + key + " must be a non-negative number", path + "." + key };
    return it->get<double>();
}

Result<Gpu> parseGpu(const json& entry, const std::string& path)
{
    if (!entry.is_object())
        return Error { path + " must be an object", path };
    Gpu gpu;
    for (const auto& [key, field] :
        { std::pair { "name", &gpu.name }, { "vendor", &gpu.vendor }, { "family", &gpu.family } }) {
        const auto it = entry.find(key);
        if (it == entry.end() || !it->is_string() || it->get<std::string>().empty())
            return Error { path + "." + key + " must be a non-empty string", path + "." + key };
        *field = it->get<std::string>();
    }
    const auto memory = entry.find("memory_bytes");
    if (memory == entry.end() || !memory->is_number_unsigned() || memory->get<std::uint64_t>() == 0)
        return Error { path + ".memory_bytes must be a positive integer (bytes)", path + ".memory_bytes" };
    gpu.memoryBytes = memory->get<std::uint64_t>();
    if (const auto aliases = entry.find("aliases"); aliases != entry.end()) {
        if (!aliases->is_array()
            || !std::all_of(aliases->begin(), aliases->end(), [](const json& a) { return a.is_string(); }))
            return Error { path + ".aliases must be a list of strings", path + ".aliases" };
        gpu.aliases = aliases->get<std::vector<std::string>>();
    }
    auto bandwidth = number(entry, "bandwidth_gbps", path, true);
    auto fp32 = number(entry, "fp32_tflops", path, true);
    auto fp16 = number(entry, "fp16_tflops", path, false);
    auto bf16 = number(entry, "bf16_tflops", path, false);
    auto link = number(entry, "link_gbps", path, false);
    for (const auto* r : { &bandwidth, &fp32, &fp16, &bf16, &link }) {
        if (!*r)
            return r->error();
    }
    gpu.bandwidthGBps = bandwidth.value();
    gpu.fp32Tflops = fp32.value();
    gpu.fp16Tflops = fp16.value();
    gpu.bf16Tflops = bf16.value();
    gpu.linkGBps = link.value();
    if (const auto pcie = entry.find("pcie_gen"); pcie != entry.end()) {
        if (!pcie->is_number_unsigned() || pcie->get<std::uint64_t>() > kMaxPcieGeneration)
            return Error { path + ".pcie_gen must be a PCIe generation from 0 (unknown) to "
                    + std::to_string(kMaxPcieGeneration),
                path + ".pcie_gen" };
        gpu.pcieGeneration = static_cast<int>(pcie->get<std::uint64_t>());
    }
    return gpu;
}

std::string candidateList(const std::vector<const Gpu*>& gpus)
{
    std::string s;
    for (std::size_t i = 0; i < gpus.size(); ++i)
        s += (i == 0 ? "" : ", ") + gpus[i]->name;
    return s;
}

} // namespace

double pcieX16GBps(int generation) noexcept
{
    // Per lane and direction: 2.5 and 5 GT/s with 8b/10b coding (0.25, 0.5 GB/s), then 8, 16, 32 and
    // 64 GT/s with 128b/130b (PCI-SIG; PCIe 6.0's FLIT coding taken as 128b/130b too).
    switch (generation) {
    case 1:
        return 4.0;
    case 2:
        return 8.0;
    case 3:
        return 15.75;
    case 4:
        return 31.5;
    case 5:
        return 63.0;
    case 6:
        return 126.0;
    default:
        return 0.0;
    }
}

Result<GpuCatalog> GpuCatalog::fromJson(std::string_view text)
{
    auto parsed = detail::parseJsonText(text, "GPU catalogue");
    if (!parsed)
        return parsed.error();
    const auto& j = parsed.value();
    if (!j.is_object() || j.value("format", "") != "headroom-gpus")
        return Error { "GPU catalogue: format must be \"headroom-gpus\"", "format" };
    const auto list = j.find("gpus");
    if (list == j.end() || !list->is_array())
        return Error { "GPU catalogue: gpus must be a list", "gpus" };
    std::vector<Gpu> gpus;
    for (std::size_t i = 0; i < list->size(); ++i) {
        auto gpu = parseGpu((*list)[i], "gpus[" + std::to_string(i) + "]");
        if (!gpu)
            return Error { "GPU catalogue: " + gpu.error().message, gpu.error().location };
        const bool duplicate
            = std::any_of(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.name == gpu->name; });
        if (duplicate)
            return Error { "GPU catalogue: gpus[" + std::to_string(i) + "].name \"" + gpu->name
                    + "\" appears twice",
                "gpus[" + std::to_string(i) + "].name" };
        gpus.push_back(std::move(gpu).value());
    }
    return GpuCatalog { std::move(gpus) };
}

Result<GpuCatalog> GpuCatalog::fromFile(const std::string& path)
{
    auto text = detail::readTextFile(path, kMaxCatalogBytes);
    if (!text)
        return text.error();
    auto catalog = fromJson(text.value());
    if (!catalog)
        return Error { path + ": " + catalog.error().message, catalog.error().location };
    return catalog;
}

Result<Gpu> GpuCatalog::find(std::string_view query) const
{
    const std::string q = lower(query);
    if (q.empty())
        return Error { "no GPU name given", "gpu" };
    const auto collect = [&](auto&& matches) {
        std::vector<const Gpu*> out;
        for (const auto& g : m_gpus) {
            if (matches(g))
                out.push_back(&g);
        }
        return out;
    };
    const auto exact = collect([&](const Gpu& g) {
        return lower(g.name) == q
            || std::any_of(g.aliases.begin(), g.aliases.end(), [&](const auto& a) { return lower(a) == q; });
    });
    if (exact.size() == 1)
        return *exact.front();
    const auto unbranded = collect(
        [&](const Gpu& g) { return lower(withoutBrand(g.name)) == lower(withoutBrand(std::string(query))); });
    if (unbranded.size() == 1)
        return *unbranded.front();
    const auto partial = collect([&](const Gpu& g) {
        return lower(g.name).find(q) != std::string::npos
            || std::any_of(g.aliases.begin(), g.aliases.end(),
                [&](const auto& a) { return lower(a).find(q) != std::string::npos; });
    });
    if (partial.size() == 1)
        return *partial.front();
    if (partial.empty())
        return Error { "unknown GPU " + quoteForMessage(query) + "; `headroom gpus` lists the known ones",
            "gpu" };
    return Error { "GPU " + quoteForMessage(query) + " is ambiguous: it matches " + candidateList(partial),
        "gpu" };
}

Gpu GpuCatalog::defaultGpu() const
{
    if (auto gpu = find(kDefaultGpuName))
        return std::move(gpu).value();
    if (!m_gpus.empty())
        return m_gpus.front();
    Gpu gpu;
    gpu.name = "8 GiB GPU";
    gpu.memoryBytes = 8ULL << 30;
    gpu.custom = true;
    return gpu;
}

void GpuCatalog::addCustom(Gpu gpu)
{
    gpu.custom = true;
    const auto same
        = std::find_if(m_gpus.begin(), m_gpus.end(), [&](const Gpu& g) { return g.name == gpu.name; });
    if (same != m_gpus.end())
        *same = std::move(gpu);
    else
        m_gpus.push_back(std::move(gpu));
}

} // namespace headroom
