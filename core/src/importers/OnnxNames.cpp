// Layer names from ONNX node names: torch.onnx's module scopes ("/layer1/layer1.0/conv1/Conv") back to
// PyTorch's module paths ("layer1.0.conv1"), unique and in the model file's alphabet.
#include "OnnxNames.h"

#include "OnnxMetadata.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace headroom::onnximport {

namespace {

constexpr std::size_t kMaxNameLength = 200;

std::string sanitize(std::string_view s)
{
    std::string out;
    for (const char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
            || c == '.' || c == '-';
        out += ok ? c : '_';
    }
    if (out.size() > kMaxNameLength - 10)
        out.resize(kMaxNameLength - 10);
    return out.empty() ? std::string("layer") : out;
}

/// torch.onnx names nodes by module scope: "/layer1/layer1.0/conv1/Conv". The scope without the
/// repeated prefixes ("layer1.0.conv1") and the operator part ("Conv").
struct NodeName
{
    std::string scope;
    std::string op;
};

/// The dynamo exporter names nodes "node_Conv_254" and keeps the module scopes in the node's metadata
/// (OnnxMetadata.h): the innermost module ("layer1.0.conv1") and the operator. A node that took over a
/// BatchNorm's place carries that BatchNorm's scopes (DynamoRestore.cpp): its own module is not known, so
/// it is named in the BatchNorm's parent ("layer1.0.Conv").
std::optional<NodeName> dynamoNodeName(const onnx::NodeProto& node)
{
    const auto scopes = nodeMetadata(node, "pkg.torch.onnx.name_scopes");
    std::string module = scopes ? modulePathOfScopes(*scopes) : std::string();
    if (module.empty())
        return std::nullopt;
    const auto fx = nodeMetadata(node, "pkg.torch.onnx.fx_node");
    const auto call = fx ? parseFxNode(*fx) : std::nullopt;
    if (call && call->target.find("batch_norm") != std::string::npos
        && node.op_type() != "BatchNormalization") {
        const auto dot = module.rfind('.');
        module = dot == std::string::npos ? std::string() : module.substr(0, dot);
    }
    return NodeName { module, node.op_type() };
}

NodeName splitNodeName(const onnx::NodeProto& node)
{
    const std::string& name = node.name();
    if (name.empty() || name.front() != '/') {
        if (auto dynamo = dynamoNodeName(node))
            return *dynamo;
        return { {}, name.empty() ? (node.output_size() > 0 ? node.output(0) : node.op_type()) : name };
    }
    std::vector<std::string> parts;
    for (std::size_t start = 0; start <= name.size();) {
        const auto slash = std::min(name.find('/', start), name.size());
        if (slash > start)
            parts.push_back(name.substr(start, slash - start));
        start = slash + 1;
    }
    NodeName out;
    const auto isOpPart = [&](const std::string& p) {
        const std::string& op = node.op_type();
        if (p == op)
            return true;
        return p.size() > op.size() + 1 && p.compare(0, op.size() + 1, op + "_") == 0
            && std::all_of(p.begin() + static_cast<std::ptrdiff_t>(op.size() + 1), p.end(),
                [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!parts.empty() && isOpPart(parts.back())) {
        out.op = parts.back();
        parts.pop_back();
    } else {
        out.op = node.op_type();
    }
    std::vector<std::string> scope;
    for (auto& p : parts) {
        if (!scope.empty() && p.size() > scope.back().size()
            && p.compare(0, scope.back().size() + 1, scope.back() + ".") == 0)
            scope.back() = p;
        else
            scope.push_back(p);
    }
    for (const auto& s : scope)
        out.scope += (out.scope.empty() ? "" : ".") + s;
    return out;
}

/// Headroom names for the layers: the module scope when one layer has it ("layer1.0.conv1"), the
/// scope plus the operator otherwise ("layer1.0.Add"), unique and in the model file's alphabet.
} // namespace

std::vector<std::string> layerNames(const OnnxGraph& g, const std::vector<PendingLayer>& layers)
{
    std::vector<NodeName> parts;
    std::map<std::string, int> scopeCount;
    for (const auto& l : layers) {
        parts.push_back(
            l.modulePath.empty() ? splitNodeName(g.graph().node(l.node)) : NodeName { l.modulePath, l.type });
        if (!parts.back().scope.empty())
            ++scopeCount[parts.back().scope];
    }
    const auto isContainer = [&](const std::string& scope) {
        const std::string prefix = scope + ".";
        const auto it = scopeCount.lower_bound(prefix);
        return it != scopeCount.end() && it->first.compare(0, prefix.size(), prefix) == 0;
    };
    std::unordered_set<std::string> taken { "input", "repeat_input" };
    std::unordered_map<std::string, int> nextSuffix;
    std::vector<std::string> names;
    for (const auto& p : parts) {
        std::string base;
        if (p.scope.empty())
            base = sanitize(p.op);
        else if (scopeCount[p.scope] == 1 && !isContainer(p.scope))
            base = sanitize(p.scope);
        else
            base = sanitize(p.scope + "." + p.op);
        std::string name = base;
        for (int& k = nextSuffix.try_emplace(base, 2).first->second; taken.count(name) > 0; ++k)
            name = base + "_" + std::to_string(k);
        taken.insert(name);
        names.push_back(name);
    }
    return names;
}

} // namespace headroom::onnximport
