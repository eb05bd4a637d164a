// libFuzzer harness for the ONNX importer: any bytes must give a network or an Error, never a crash,
// a hang or a leak; a network it returns must analyse and survive a model-file round trip.
//
// Byte edits rarely get past protobuf's parser into what ONNX's shape inference reads, so half the
// mutations are structural: the input is parsed as a ModelProto and one field is changed by reflection
// (ProtoFieldMutations.h: zero, -1, 2^32, INT64_MIN, NaN, a byte more or less of raw_data, another name
// from the file, an element removed or repeated, a sub-message cleared), as issue 26's audit did.
#include "ImportCheck.h"
#include "ProtoFieldMutations.h"
#include "headroom/importers/OnnxImport.h"

#include <cstdint>
#include <cstring>
#include <onnx/onnx_pb.h>
#include <random>
#include <string_view>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    headroom::fuzz::checkImport(headroom::importOnnx(bytes, "fuzz.onnx"), "fuzz.onnx");
    return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(
    std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned int seed)
{
    std::mt19937 random(seed);
    onnx::ModelProto model;
    if (random() % 2 == 0 && size <= (1U << 20) && model.ParseFromArray(data, static_cast<int>(size))) {
        const auto mutations = headroom::fuzz::fieldMutations(model);
        if (!mutations.empty()) {
            headroom::fuzz::applyMutation(model, mutations[random() % mutations.size()]);
            std::string out;
            if (model.SerializeToString(&out) && out.size() <= maxSize) {
                std::memcpy(data, out.data(), out.size());
                return out.size();
            }
        }
    }
    return LLVMFuzzerMutate(data, size, maxSize);
}
