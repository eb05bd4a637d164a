// Writes the ONNX file a protobuf text file describes: how the hostile seeds in corpus/onnx/ are made
// from tests/data/onnx/hostile/*.textproto (README.md).
//
//   onnx_from_text IN.textproto OUT.onnx
#include <fstream>
#include <google/protobuf/text_format.h>
#include <iostream>
#include <iterator>
#include <onnx/onnx_pb.h>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: onnx_from_text IN.textproto OUT.onnx\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    const std::string text { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    onnx::ModelProto model;
    if (!in.good() && !in.eof()) {
        std::cerr << argv[1] << ": cannot be read\n";
        return 2;
    }
    if (!google::protobuf::TextFormat::ParseFromString(text, &model)) {
        std::cerr << argv[1] << ": not an ONNX ModelProto in protobuf text format\n";
        return 2;
    }
    std::ofstream out(argv[2], std::ios::binary);
    if (!model.SerializeToOstream(&out)) {
        std::cerr << argv[2] << ": cannot be written\n";
        return 2;
    }
    return 0;
}
