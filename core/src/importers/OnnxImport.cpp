// ONNX import: parse with the ONNX library, run its shape inference, map operators to layers, then
// analyse the result once and check every layer's shape against ONNX's.
#include "headroom/importers/OnnxImport.h"

#include "headroom/analysis/Analysis.h"
#include "importers/OnnxGraph.h"
#include "importers/OnnxInference.h"
#include "importers/OnnxNames.h"
#include "importers/OnnxOperators.h"
#include "importers/OnnxOpsetAdapter.h"
#include "importers/OnnxPinning.h"
#include "importers/OnnxPreflight.h"
#include "importers/OnnxValidation.h"
#include "support/JsonText.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <map>
#include <onnx/defs/schema.h>
#include <onnx/proto_utils.h>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace headroom {

namespace {

using onnximport::cleanText;
using onnximport::describe;
using onnximport::layerNames;
using onnximport::nodeLabel;
using onnximport::OnnxGraph;
using onnximport::PendingLayer;

using onnximport::kMaxDimension;
constexpr std::size_t kMaxListedRefusals = 40;
/// The most characters of a report from the ONNX library a message repeats.
constexpr std::size_t kReportCharacters = 300;
/// Initializers bigger than this lose their data right after parsing: only their dims matter.
constexpr std::size_t kKeptInitializerBytes = 64 * 1024;
/// Inference passes: the first pins what data propagation cannot compute (Pad amounts and Resize scales
/// torch folds from constants), the second infers with them; every export in tests/data/onnx needs at
/// most two. The bound keeps the work linear in the graph (issue 26: a pass per node was quadratic).
constexpr int kMaxInferencePasses = 8;

Error fail(const std::string& file, const std::string& what, std::string location = {})
{
    return Error { file + ": " + what, location.empty() ? file : std::move(location) };
}

/// A guess at what a file that is not protobuf is, for the message.
std::string sniff(std::string_view bytes)
{
    const auto starts = [&](std::string_view magic) { return bytes.substr(0, magic.size()) == magic; };
    if (starts("\xFF\xD8\xFF"))
        return " (it looks like a JPEG image)";
    if (starts("\x89PNG"))
        return " (it looks like a PNG image)";
    if (starts("PK\x03\x04"))
        return " (it looks like a ZIP archive, as PyTorch's .pt files are; export the model with "
               "torch.onnx.export)";
    const auto first = bytes.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (bytes[first] == '{' || bytes[first] == '['))
        return " (it looks like JSON text; Headroom model files are opened as .json)";
    return "";
}

std::optional<DType> dtypeOf(std::int32_t onnxType)
{
    switch (onnxType) {
    case onnx::TensorProto::FLOAT:
        return DType::Float32;
    case onnx::TensorProto::FLOAT16:
        return DType::Float16;
    case onnx::TensorProto::BFLOAT16:
        return DType::BFloat16;
    case onnx::TensorProto::DOUBLE:
        return DType::Float64;
    case onnx::TensorProto::INT64:
        return DType::Int64;
    case onnx::TensorProto::INT32:
        return DType::Int32;
    case onnx::TensorProto::UINT8:
        return DType::UInt8;
    case onnx::TensorProto::BOOL:
        return DType::Bool;
    default:
        return std::nullopt;
    }
}

/// The default-domain opset the model imports, or an error.
Result<int> defaultOpset(const onnx::ModelProto& model, const std::string& file)
{
    std::optional<std::int64_t> version;
    std::map<std::string, std::vector<std::int64_t>> declared;
    for (const auto& o : model.opset_import()) {
        const bool standard = o.domain().empty() || o.domain() == "ai.onnx";
        declared[standard ? std::string() : o.domain()].push_back(o.version());
        if (standard)
            version = o.version();
    }
    for (const auto& [domain, versions] : declared) {
        if (versions.size() > 1)
            return fail(file,
                "declares the opset of "
                    + (domain.empty() ? std::string("the standard ONNX operators")
                                      : "domain '" + domain + "'")
                    + " " + std::to_string(versions.size()) + " times (" + std::to_string(versions[0])
                    + " and " + std::to_string(versions[1]) + "); a model imports each domain once");
    }
    const std::string range = std::to_string(kOnnxMinOpset) + " to " + std::to_string(kOnnxMaxOpset);
    if (!version)
        return fail(
            file, "declares no opset for the standard ONNX operators; Headroom imports opsets " + range);
    if (*version < kOnnxMinOpset)
        return fail(file,
            "uses opset " + std::to_string(*version) + ", older than Headroom imports (" + range
                + "); upgrade it with onnx.version_converter.convert_version");
    const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const auto it = known.find(onnx::ONNX_DOMAIN);
    const int libraryMax = it == known.end() ? kOnnxMaxOpset : std::min(kOnnxMaxOpset, it->second.second);
    if (*version > kOnnxMaxReadOpset || (*version > libraryMax && libraryMax < kOnnxMaxOpset))
        return fail(file,
            "uses opset " + std::to_string(*version) + ", newer than Headroom reads (it imports opsets "
                + std::to_string(kOnnxMinOpset) + " to " + std::to_string(libraryMax) + ", and "
                + std::to_string(libraryMax + 1) + " to " + std::to_string(kOnnxMaxReadOpset) + " as "
                + std::to_string(libraryMax) + " where their operators allow); export with opset_version="
                + std::to_string(libraryMax) + " or lower");
    return static_cast<int>(*version);
}

/// The network input: one sample's shape, its dtype and what the batch axis is.
struct InputInfo
{
    InputSpec spec;
    std::string batchNote;
};

Result<InputInfo> readInput(const OnnxGraph& g, const std::string& file)
{
    const std::string& name = g.inputName();
    const auto* t = g.type(name);
    const std::string where = "input '" + name + "'";
    if (t == nullptr || t->elementType == 0)
        return fail(file, where + " is not a tensor of a known element type", name);
    const auto dtype = dtypeOf(t->elementType);
    if (!dtype)
        return fail(file,
            where + " has element type " + onnximport::elementTypeName(t->elementType)
                + ", which Headroom does not model",
            name);
    if (!t->hasShape)
        return fail(file,
            where
                + " has no shape; Headroom needs the input's shape to infer every layer's (export "
                  "with an example input, or set the shape with onnx.tools.update_model_dims)",
            name);
    if (t->rank() < 2)
        return fail(file,
            where + " has shape " + describe(*t)
                + "; Headroom needs a batch axis first and at least one axis per sample",
            name);
    InputInfo info;
    info.spec.dtype = *dtype;
    for (std::size_t k = 1; k < t->rank(); ++k) {
        const auto& d = t->dims[k];
        const std::string axis = where + " axis " + std::to_string(k);
        if (!d.known())
            return fail(file,
                axis + (d.symbol.empty() ? std::string(" has no size") : " is symbolic ('" + d.symbol + "')")
                    + "; Headroom needs a fixed size for every axis but the first (the batch axis): "
                      "export with a fixed input size",
                name);
        if (*d.value < 1 || *d.value > kMaxDimension)
            return fail(
                file, axis + " has size " + std::to_string(*d.value) + "; sizes must be 1 to 2^40", name);
        info.spec.shape.dims.push_back(*d.value);
    }
    const auto& batch = t->dims.front();
    if (!batch.symbol.empty())
        info.batchNote = "The batch axis is the input's first axis ('" + batch.symbol + "', symbolic).";
    else if (batch.known())
        info.batchNote = "The input's first axis has the fixed size " + std::to_string(*batch.value)
            + " in the file; Headroom treats it as the batch axis, so any batch size can be planned.";
    else
        info.batchNote = "The batch axis is the input's first axis (its size is left open in the file).";
    return info;
}

// ---- assembling the network -----------------------------------------------------------------------

/// Activations PyTorch code usually runs in place (torchvision: nn.ReLU(inplace=True)). ONNX does not
/// record it; Headroom marks one in place when PyTorch would allow it (its input is a fresh tensor that
/// nothing else reads and that its producer does not keep for backward) and when that cannot hide a
/// tensor autograd keeps: relu keeps its result in place or not, and hardtanh_ (ReLU6) keeps a copy of
/// its input as hardtanh keeps the input. leaky_relu keeps its input but leaky_relu_ its result, one
/// tensor fewer where the next layer keeps its input too, so a LeakyReLU stays out of place: the safe
/// side for a model written with nn.LeakyReLU() (issue 34; torchvision has none).
bool canRunInPlace(const std::string& type, const std::string& producerType)
{
    static const std::set<std::string> kInPlace { "ReLU", "ReLU6" };
    static const std::set<std::string> kFreshOutput { "Conv1d", "Conv2d", "ConvTranspose2d", "Linear",
        "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Add", "Concat", "MaxPool2d", "AvgPool2d" };
    return kInPlace.count(type) > 0 && kFreshOutput.count(producerType) > 0;
}

std::string stem(const std::string& file)
{
    const auto s = std::filesystem::path(file).stem().string();
    return s.empty() ? std::string("ONNX model") : s;
}

std::string refusalList(const OnnxGraph& g, const std::vector<onnximport::Refusal>& refusals)
{
    std::set<std::string> ops;
    for (const auto& r : refusals)
        ops.insert(g.graph().node(r.node).op_type());
    std::string opList;
    for (const auto& op : ops)
        opList += (opList.empty() ? "" : ", ") + op;
    std::string s = "cannot import " + std::to_string(refusals.size()) + " operator"
        + (refusals.size() == 1 ? "" : "s") + " (" + opList + "): ";
    for (std::size_t k = 0; k < refusals.size() && k < kMaxListedRefusals; ++k) {
        const auto& n = g.graph().node(refusals[k].node);
        s += (k == 0 ? "" : ", ") + nodeLabel(n) + " (" + n.op_type()
            + (refusals[k].reason.empty() ? std::string() : ": " + refusals[k].reason) + ")";
    }
    if (refusals.size() > kMaxListedRefusals)
        s += ", and " + std::to_string(refusals.size() - kMaxListedRefusals) + " more";
    return s;
}

std::optional<Error> checkSize(std::uint64_t size, const std::string& file)
{
    if (size == 0)
        return fail(file, "is empty, not an ONNX model");
    if (size > kMaxOnnxFileBytes)
        return fail(file,
            "is larger than 2 GiB, the most an ONNX file can hold (bigger models keep their weights "
            "in external data files)");
    return std::nullopt;
}

Error notProtobuf(std::string_view head, const std::string& file)
{
    return fail(file, "is not an ONNX model: its protobuf data is invalid or truncated" + sniff(head));
}

/// Weights are not needed, only their dims: large initializers lose their data right after parsing.
void dropLargeInitializerData(onnx::ModelProto& model)
{
    for (auto& t : *model.mutable_graph()->mutable_initializer()) {
        if (static_cast<std::size_t>(t.ByteSizeLong()) > kKeptInitializerBytes) {
            t.clear_raw_data();
            t.clear_float_data();
            t.clear_double_data();
            t.clear_int32_data();
            t.clear_int64_data();
            t.clear_uint64_data();
        }
    }
}

/// The checked, shape-inferred graph: preflight, then inference passes, each pinning the shape inputs the
/// last one opened (a Reshape whose Shape reads a tensor the last pass inferred), at most
/// kMaxInferencePasses of them.
Result<OnnxGraph> inferGraph(
    onnx::ModelProto& model, int opset, std::string& inferenceError, const std::string& file)
{
    dropLargeInitializerData(model);
    onnximport::markMissingDataExternal(model);
    if (auto e = onnximport::preflight(model, opset, file))
        return *e;
    const auto declared = onnximport::declaredOutputTypes(model.graph()); // before inference adds its own
    for (int pass = 1;; ++pass) {
        inferenceError.clear();
        auto shapeData = onnximport::inferShapes(model, declared, inferenceError);
        if (!shapeData)
            return fail(file, shapeData.error().message, shapeData.error().location);
        auto indexed = OnnxGraph::index(model.graph(), shapeData.value());
        if (!indexed)
            return fail(file, indexed.error().message, indexed.error().location);
        const auto pinned = onnximport::pinShapeInputs(model, indexed.value());
        if (pinned == onnximport::PinResult::Nothing)
            return indexed;
        if (pinned == onnximport::PinResult::ValuesOnly || pass == kMaxInferencePasses) {
            indexed
                = OnnxGraph::index(model.graph(), std::move(shapeData).value()); // knows the pinned values
            if (!indexed)
                return fail(file, indexed.error().message, indexed.error().location);
            return indexed;
        }
    }
}

/// The opset the mapping reads the model as: the declared one, or 17 for 18 to 21 after rewriting what
/// changed since (OnnxOpsetAdapter).
Result<int> readableOpset(onnx::ModelProto& model, int declared, const std::string& file)
{
    if (auto e = onnximport::validateModel(model))
        return fail(file, e->message, e->location);
    if (declared <= kOnnxMaxOpset)
        return declared;
    if (auto e = onnximport::readAsOpset(model, declared, kOnnxMaxOpset, file))
        return *e;
    return kOnnxMaxOpset;
}

/// What stops a mapping from becoming a network: refused operators, a tensor without a shape, nothing
/// computed from the input.
std::optional<Error> mappingProblem(const OnnxGraph& g, const onnximport::OperatorMapping& mapping,
    const std::string& inferenceError, const std::string& outputValue, const std::string& file)
{
    std::vector<onnximport::Refusal> fatal;
    std::copy_if(mapping.refusals.begin(), mapping.refusals.end(), std::back_inserter(fatal),
        [](const onnximport::Refusal& r) { return r.fatal; });
    if (!fatal.empty())
        return fail(file, refusalList(g, fatal), g.graph().node(fatal.front().node).name());
    if (mapping.missingShape) {
        std::string message = mapping.missingShape->message;
        if (!inferenceError.empty()) // ONNX's report may run to hundreds of kilobytes
            message += " (ONNX shape inference reported: "
                + onnximport::shortText(inferenceError, kReportCharacters) + ")";
        return fail(file, message, mapping.missingShape->location);
    }
    if (mapping.layers.empty())
        return fail(file,
            "computes nothing from its input that Headroom could model (no operators between '"
                + g.inputName() + "' and '" + outputValue + "')");
    return std::nullopt;
}

/// The mapped layers as a network's layers, wired by name, ending in the graph's first output.
Result<std::vector<LayerSpec>> assembleLayers(const OnnxGraph& g, const onnximport::OperatorMapping& mapping,
    const std::vector<std::string>& names, const std::string& outputValue, const std::string& file)
{
    std::unordered_map<std::string, std::size_t> layerOfValue;
    for (std::size_t k = 0; k < mapping.layers.size(); ++k)
        layerOfValue[mapping.layers[k].outputValue] = k;
    std::unordered_map<std::string, std::string> alias(mapping.aliases.begin(), mapping.aliases.end());
    const auto resolve = [&](std::string value) -> std::optional<std::size_t> {
        for (int hops = 0; hops < 8 && alias.count(value) > 0; ++hops)
            value = alias.at(value);
        const auto it = layerOfValue.find(value);
        return it == layerOfValue.end() ? std::nullopt : std::optional<std::size_t>(it->second);
    };
    std::vector<LayerSpec> layers;
    for (std::size_t k = 0; k < mapping.layers.size(); ++k) {
        const auto& l = mapping.layers[k];
        LayerSpec spec;
        spec.type = l.type;
        spec.name = names[k];
        spec.attributes = l.attributes;
        for (const auto& value : l.inputValues) {
            if (value == g.inputName()) {
                spec.inputs.push_back("input");
                continue;
            }
            const auto producer = resolve(value);
            if (!producer || *producer >= k)
                return fail(file,
                    "tensor '" + value + "' read by " + nodeLabel(g.graph().node(l.node))
                        + " comes from no operator Headroom imported",
                    value);
            spec.inputs.push_back(names[*producer]);
        }
        if (spec.inputs.size() == 1 && spec.inputs.front() != "input") {
            const auto& value = l.inputValues.front();
            const auto producer = resolve(value);
            if (producer && canRunInPlace(l.type, mapping.layers[*producer].type)
                && g.consumers(value).size() == 1 && !g.isGraphOutput(value))
                spec.attributes["inplace"] = true;
        }
        // A layer reading the previous layer's output leaves `inputs` out, as hand-written files do.
        if (spec.inputs.size() == 1 && spec.inputs.front() == (k == 0 ? std::string("input") : names[k - 1]))
            spec.inputs.clear();
        layers.push_back(std::move(spec));
    }
    const auto last = resolve(outputValue);
    if (!last)
        return fail(
            file, "its output '" + outputValue + "' comes from no operator Headroom imported", outputValue);
    if (*last + 1 != mapping.layers.size()) {
        LayerSpec out;
        out.type = "Identity";
        out.name = "output";
        const std::unordered_set<std::string> used(names.begin(), names.end());
        for (int k = 2; used.count(out.name) > 0; ++k)
            out.name = "output_" + std::to_string(k);
        out.inputs.push_back(names[*last]);
        layers.push_back(std::move(out));
    }
    return layers;
}

/// The network's description: where it came from, how its batch axis was read, what is assumed.
std::string importDescription(const onnx::ModelProto& model, const std::string& file, int declared, int opset,
    const onnximport::OperatorMapping& mapping, const std::string& batchNote, const std::string& outputValue)
{
    const std::string producer = model.producer_name().empty() ? std::string()
                                                               : model.producer_name()
            + (model.producer_version().empty() ? "" : " " + model.producer_version()) + ", ";
    std::string d = "Imported from the ONNX model " + std::filesystem::path(file).filename().string() + " ("
        + producer + "opset " + std::to_string(declared)
        + (declared != opset ? " read as " + std::to_string(opset) : std::string())
        + "): " + std::to_string(mapping.layers.size()) + " layers named after the ONNX nodes. " + batchNote
        + " ONNX does not record in-place operations; ReLU and ReLU6 run in place where PyTorch allows it, "
          "as in torchvision's models (what autograd keeps is the same either way), LeakyReLU out of place "
          "(in place it would keep one tensor less: set inplace if your model runs it so).";
    if (mapping.genericLayers > 0)
        d += " " + std::to_string(mapping.genericLayers) + " operator"
            + (mapping.genericLayers == 1 ? " Headroom has no exact layer for is"
                                          : "s Headroom has no exact layer for are")
            + " modelled as GenericOp layers that keep their inputs (see the warnings).";
    for (const auto& note : mapping.notes)
        d += " " + note;
    if (model.graph().output_size() > 1)
        d += " The loss applies to the first of its " + std::to_string(model.graph().output_size())
            + " outputs ('" + outputValue + "').";
    return cleanText(d);
}

/// The imported network analysed once: every layer's per-sample shape (and batch axis) must be the one
/// ONNX inferred for its tensor.
std::optional<Error> checkAgainstOnnx(const Network& net, const OnnxGraph& g,
    const onnximport::OperatorMapping& mapping, const std::vector<std::string>& names,
    const std::string& file)
{
    const Analysis analysis = analyze(net, Precision::Fp32);
    if (!analysis.valid())
        return fail(
            file, "the imported network is not valid: " + analysis.error->message, analysis.error->location);
    std::unordered_map<std::string, std::size_t> layerOfName;
    for (std::size_t k = 0; k < names.size(); ++k)
        layerOfName.emplace(names[k], k);
    for (const auto& row : analysis.rows) {
        const auto it = layerOfName.find(row.name);
        if (row.depth != 0 || it == layerOfName.end())
            continue;
        const auto& layer = mapping.layers[it->second];
        const auto expected = g.perSampleOf(layer.outputValue);
        if (expected
            && (*expected != row.output.shape.dims
                || g.wholeBatchAxisOf(layer.outputValue) != row.output.batchAxis))
            return fail(file,
                "layer '" + row.name + "' (" + row.type + " from " + nodeLabel(g.graph().node(layer.node))
                    + ") gives " + row.output.shape.toBatchedString(row.output.batchAxis)
                    + " but ONNX infers " + describe(g.type(layer.outputValue)) + " for '" + layer.outputValue
                    + "'; the operator has a setting Headroom does not model",
                row.name);
    }
    return std::nullopt;
}

/// Everything after parsing; `head` is the file's first bytes, for the hint when it is no ONNX model.
Result<Network> importModel(onnx::ModelProto& model, std::string_view head, const std::string& file)
{
    if (!model.has_graph() || model.graph().node_size() == 0)
        return fail(file, "is not an ONNX model (it has no graph of operators)" + sniff(head));
    const auto declared = defaultOpset(model, file);
    if (!declared)
        return declared.error();
    const auto opset = readableOpset(model, declared.value(), file);
    if (!opset)
        return opset.error();
    std::string inferenceError;
    auto indexed = inferGraph(model, opset.value(), inferenceError, file);
    if (!indexed)
        return indexed.error();
    const OnnxGraph& g = indexed.value();
    const auto input = readInput(g, file);
    if (!input)
        return input.error();
    if (model.graph().output_size() == 0)
        return fail(file, "has no graph output");
    const std::string& outputValue = model.graph().output(0).name();
    if (!g.isDynamic(outputValue))
        return fail(file,
            "its output '" + outputValue + "' does not depend on its input '" + g.inputName() + "'",
            outputValue);
    const auto mapping = onnximport::mapOperators(g, opset.value());
    if (auto e = mappingProblem(g, mapping, inferenceError, outputValue, file))
        return *e;
    const auto names = layerNames(g, mapping.layers);
    auto layers = assembleLayers(g, mapping, names, outputValue, file);
    if (!layers)
        return layers.error();
    Network net;
    net.name = cleanText(stem(file));
    net.input = input->spec;
    net.loss = Loss::CrossEntropy;
    net.layers = std::move(layers).value();
    net.description = importDescription(
        model, file, declared.value(), opset.value(), mapping, input->batchNote, outputValue);
    for (const auto& w : mapping.warnings)
        net.warnings.push_back(cleanText(w));
    if (auto e = checkAgainstOnnx(net, g, mapping, names, file))
        return *e;
    return net;
}

/// Runs `import`, turning exceptions from the ONNX and protobuf libraries into errors and making
/// every message valid UTF-8.
template <typename Import> Result<Network> guarded(const std::string& file, Import import)
{
    Result<Network> result = Error {};
    try {
        result = import();
    } catch (const std::exception& e) {
        result = fail(file,
            "the ONNX library could not process the model: "
                + onnximport::shortText(e.what(), kReportCharacters));
    } catch (...) {
        result = fail(file, "the ONNX library could not process the model");
    }
    if (!result.ok()) // one line, every name in it cut to 64 characters
        return Error { onnximport::shortNames(cleanText(result.error().message), cleanText(file) + ": "),
            cleanText(result.error().location) };
    return result;
}

} // namespace

Result<Network> importOnnx(std::string_view bytes, const std::string& nameForErrors)
{
    return guarded(nameForErrors, [&]() -> Result<Network> {
        if (auto e = checkSize(bytes.size(), nameForErrors))
            return *e;
        onnx::ModelProto model;
        if (!onnx::ParseProtoFromBytes(&model, bytes.data(), bytes.size()))
            return notProtobuf(bytes.substr(0, 64), nameForErrors);
        return importModel(model, bytes.substr(0, 64), nameForErrors);
    });
}

Result<Network> importOnnxFile(const std::string& path)
{
    // Parsed straight from the file: a 550 MB VGG-16 with its weights is not held twice.
    return guarded(path, [&]() -> Result<Network> {
        std::error_code ec;
        const auto status = std::filesystem::status(path, ec);
        if (ec || !std::filesystem::exists(status))
            return detail::unopenablePath(path, ec);
        if (std::filesystem::is_directory(status))
            return Error { path + ": is a folder, not a file", path };
        const auto size = std::filesystem::file_size(path, ec);
        if (ec)
            return Error { path + ": cannot be read (" + ec.message() + ")", path };
        if (auto e = checkSize(size, path))
            return *e;
        std::ifstream in(path, std::ios::binary);
        std::string head(64, '\0');
        if (!in || (!in.read(head.data(), static_cast<std::streamsize>(head.size())) && !in.eof()))
            return Error { path + ": cannot be read", path };
        head.resize(static_cast<std::size_t>(in.gcount()));
        in.clear();
        in.seekg(0);
        onnx::ModelProto model;
        {
            google::protobuf::io::IstreamInputStream stream(&in);
            google::protobuf::io::CodedInputStream coded(&stream);
            coded.SetTotalBytesLimit(static_cast<int>(kMaxOnnxFileBytes));
            if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
                return notProtobuf(head, path);
        }
        if (in.bad())
            return Error { path + ": reading failed", path };
        return importModel(model, head, path);
    });
}

} // namespace headroom
