// Every ONNX operator the importer maps and every pattern it recognises, each family listed once.
#include "onnxops/Families.h"

#include <algorithm>

namespace headroom::onnximport {

namespace {

std::vector<OperatorEntry> builtinOperators()
{
    using namespace ops;
    Operators table;
    addConvolution(table);
    addLinear(table);
    addNormalization(table);
    addActivations(table);
    addSoftmax(table);
    addPooling(table);
    addReshape(table);
    addDropout(table);
    addMerge(table);
    addGather(table);
    addArithmetic(table);
    addMovement(table);
    addRecurrent(table);
    addEinsum(table);
    std::sort(table.begin(), table.end(),
        [](const OperatorEntry& a, const OperatorEntry& b) { return std::string_view(a.opType) < b.opType; });
    return table;
}

} // namespace

OperatorMapper findOperator(const std::string& opType)
{
    static const std::vector<OperatorEntry> table = builtinOperators();
    const auto it = std::lower_bound(table.begin(), table.end(), opType,
        [](const OperatorEntry& e, const std::string& op) { return std::string_view(e.opType) < op; });
    return it != table.end() && opType == it->opType ? it->map : nullptr;
}

const std::vector<PatternEntry>& patterns()
{
    // In order, each over the whole graph: a node taken by an earlier pattern is not offered to a later
    // one, so whole modules come before the patterns inside them.
    static const std::vector<PatternEntry> list {
        { "Softmax", &ops::recogniseMultiheadAttention },
        { "Softmax", &ops::recogniseWrittenOutAttention },
        { "LogSoftmax", &ops::recogniseTrailingLogSoftmax },
        { "Erf", &ops::recogniseGeluErf },
        { "Mul", &ops::recogniseSilu },
        { "Mul", &ops::recogniseRandomNoise },
        { "MatMul", &ops::recogniseLinearBias },
        { "ReduceMean", &ops::recogniseLayerNorm },
        { "Tanh", &ops::recogniseGeluTanh },
        { "AveragePool", &ops::recogniseZeroPaddedAvgPool },
        { "HardSigmoid", &ops::recogniseHardswish },
        { "Softplus", &ops::recogniseMish },
    };
    return list;
}

} // namespace headroom::onnximport
