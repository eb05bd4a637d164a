// libFuzzer harness for the ONNX importer: any bytes must give a network or an Error, never a crash,
// a hang or a leak; a network it returns must analyse and survive a model-file round trip.
#include "ImportCheck.h"
#include "headroom/OnnxImport.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    headroom::fuzz::checkImport(headroom::importOnnx(bytes, "fuzz.onnx"), "fuzz.onnx");
    return 0;
}
