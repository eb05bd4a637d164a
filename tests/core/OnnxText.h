#pragma once

// ONNX models written as protobuf text in tests (tests/data/onnx/hostile/*.textproto), turned into the
// bytes an .onnx file holds. Text format reaches every field, wrong ones included (raw_data of any
// length, dims of -1), which onnx.helper and torch.onnx would not write.

#include <fstream>
#include <google/protobuf/text_format.h>
#include <iterator>
#include <onnx/onnx_pb.h>
#include <stdexcept>
#include <string>

namespace headroom::test {

/// The serialised ModelProto written as `text`; throws when the text does not parse.
inline std::string onnxFromText(const std::string& text)
{
    onnx::ModelProto model;
    if (!google::protobuf::TextFormat::ParseFromString(text, &model))
        throw std::runtime_error("not an ONNX ModelProto in text format");
    std::string bytes;
    model.SerializeToString(&bytes);
    return bytes;
}

inline std::string readFileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

/// The text after "# expect: " on the first line of a hostile test file.
inline std::string expectation(const std::string& text)
{
    const std::string marker = "# expect: ";
    if (text.rfind(marker, 0) != 0)
        return {};
    return text.substr(marker.size(), text.find('\n') - marker.size());
}

} // namespace headroom::test
