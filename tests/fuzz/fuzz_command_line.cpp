// libFuzzer harness for the command line's option parsing and output: the input is a command line,
// one argument per line, run on a fixed model. Whatever the arguments, `headroom` must exit 0 or 2; an
// error is one line starting "headroom: error: " and never an internal error (an exception from the
// core or a library); --json output must be valid JSON.
#include "CommandLine.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

// The models the arguments run on, chosen by the input's first byte: a CNN, a transformer model file
// (--sequence-length, LoRA targets), a Hugging Face config and an ONNX file.
const char* const kModels[] = {
    HEADROOM_SOURCE_DIR "/resources/presets/lenet5.json",
    HEADROOM_SOURCE_DIR "/resources/presets/gpt2_small.json",
    HEADROOM_SOURCE_DIR "/tests/data/hf/gpt2.json",
    HEADROOM_SOURCE_DIR "/tests/data/onnx/lenet5.onnx",
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    setenv("HEADROOM_RESOURCES", HEADROOM_SOURCE_DIR "/resources", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    static const bool initialized
        = LLVMFuzzerInitialize(nullptr, nullptr) == 0; // the smoke driver does not call it
    (void)initialized;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::vector<std::string> args;
    for (std::size_t start = 0; start <= text.size();) {
        const auto end = std::min(text.find('\n', start), text.size());
        args.emplace_back(text.substr(start, end - start));
        start = end + 1;
    }
    // No paths but the model's: an argument naming a file (/dev/stdin, a FIFO) could block or read
    // anything. A report is never written: without a QGuiApplication it stops before opening a file.
    std::erase_if(args, [](const std::string& a) { return a.find('/') != std::string::npos; });
    const bool planning = !args.empty()
        && (args[0] == "estimate" || args[0] == "max-batch" || args[0] == "report" || args[0] == "plan"
            || args[0] == "compare");
    if (planning)
        args.insert(args.begin() + 1, kModels[data[0] % std::size(kModels)]);
    std::ostringstream out;
    std::ostringstream err;
    const int code = headroom::cli::run(args, "fuzz_command_line", out, err);
    const std::string error = err.str();
    if (code == headroom::cli::kExitError) {
        const bool oneLine = error.rfind("headroom: error: ", 0) == 0 && error.find('\n') == error.size() - 1;
        if (!oneLine || error.find("headroom: error: internal error") == 0 || error.size() > 4096)
            std::abort();
        return 0;
    }
    // `plan` finding nothing that fits is a result (exit 1), with its answer on standard output.
    const bool nothingFits = code == headroom::cli::kExitDoesNotFit && args[0] == "plan";
    if ((code != headroom::cli::kExitOk && !nothingFits) || !error.empty())
        std::abort();
    const auto given
        = [&](const char* option) { return std::find(args.begin() + 1, args.end(), option) != args.end(); };
    const bool json = (planning || (!args.empty() && args[0] == "gpus")) && given("--json")
        && !given("--help") && !given("-h");
    if (json) {
        const auto parsed = nlohmann::json::parse(out.str(), nullptr, false);
        if (parsed.is_discarded())
            std::abort();
    }
    return 0;
}
