// libFuzzer harness for the Hugging Face config importer: any text must give a network or an Error
// that names the file, never a crash, a hang or a leak; a network it returns must analyse and survive
// a model-file round trip.
#include "ImportCheck.h"
#include "headroom/importers/HfConfig.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    headroom::fuzz::checkImport(headroom::importHfConfig(text, "config.json"), "config.json");
    return 0;
}
