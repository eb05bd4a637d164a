// libFuzzer harness for the ONNX importer: any bytes must give a network or an Error, never a crash,
// a hang or a leak; a network it returns must analyse and survive a model-file round trip.
#include "headroom/Analysis.h"
#include "headroom/ModelFile.h"
#include "headroom/OnnxImport.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto network = headroom::importOnnx(bytes, "fuzz.onnx");
    if (!network.ok()) {
        if (network.error().message.rfind("fuzz.onnx: ", 0) != 0)
            std::abort(); // every error names the file
        return 0;
    }
    for (const auto precision : {headroom::Precision::Fp32, headroom::Precision::AmpBf16})
        (void)headroom::analyze(network.value(), precision);
    const auto reparsed = headroom::parseModel(headroom::serializeModel(network.value()));
    if (!reparsed.ok() || !(reparsed.value() == network.value()))
        std::abort(); // an imported network must be savable as a model file
    return 0;
}
