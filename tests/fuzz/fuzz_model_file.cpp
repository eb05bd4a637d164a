// libFuzzer harness for the JSON model-file loader and the analysis behind every estimate: any text
// must parse to a network or an Error, and analysing a parsed network must never crash.
#include "headroom/analysis/Analysis.h"
#include "headroom/model/ModelFile.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto network = headroom::parseModel(text);
    if (!network.ok())
        return 0;
    for (const auto precision :
        { headroom::Precision::Fp32, headroom::Precision::AmpFp16, headroom::Precision::Bf16 })
        (void)headroom::analyze(network.value(), precision);
    const auto reparsed = headroom::parseModel(headroom::serializeModel(network.value()));
    if (!reparsed.ok())
        std::abort(); // what Headroom writes it must read back
    return 0;
}
