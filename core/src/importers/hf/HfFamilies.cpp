#include "HfFamilies.h"

#include <algorithm>
#include <array>

namespace headroom::hf {

namespace {

// One line per model_type, sorted.
constexpr std::array kFamilies {
    Family { "bert", buildBert },
    Family { "deepseek_v3", buildDeepseekV3 },
    Family { "gemma", buildGemma },
    Family { "gemma2", buildGemma },
    Family { "gemma3", buildGemma },
    Family { "gemma3_text", buildGemma },
    Family { "gpt2", buildGpt2 },
    Family { "gpt_neox", buildGptNeox },
    Family { "llama", buildLlama },
    Family { "mistral", buildLlama },
    Family { "mixtral", buildSparseMoe },
    Family { "phi3", buildPhi3 },
    Family { "qwen2", buildLlama },
    Family { "qwen2_moe", buildSparseMoe },
    Family { "qwen3", buildLlama },
    Family { "qwen3_moe", buildSparseMoe },
};

} // namespace

std::span<const Family> families()
{
    return kFamilies;
}

const Family* findFamily(std::string_view modelType)
{
    const auto it = std::find_if(
        kFamilies.begin(), kFamilies.end(), [&](const Family& f) { return f.modelType == modelType; });
    return it == kFamilies.end() ? nullptr : &*it;
}

std::string supportedModelTypes()
{
    std::string s;
    for (const auto& f : kFamilies)
        s += (s.empty() ? "" : ", ") + std::string(f.modelType);
    return s;
}

} // namespace headroom::hf
