#include "OnnxMetadata.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/unknown_field_set.h>

namespace headroom::onnximport {

namespace {

constexpr int kMetadataPropsField = 9; // NodeProto.metadata_props in onnx.proto since ONNX 1.16

/// The top-level items of a comma-separated list, brackets and quotes kept whole.
std::vector<std::string> splitTopLevel(std::string_view list)
{
    std::vector<std::string> items;
    std::string current;
    int depth = 0;
    char quote = 0;
    for (const char c : list) {
        if (quote != 0) {
            quote = c == quote ? 0 : quote;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            --depth;
        } else if (c == ',' && depth == 0) {
            items.push_back(current);
            current.clear();
            continue;
        }
        if (!(current.empty() && c == ' '))
            current += c;
    }
    while (!current.empty() && current.back() == ' ')
        current.pop_back();
    if (!current.empty())
        items.push_back(current);
    return items;
}

/// The text between `open` at `from` and its matching closing bracket.
std::optional<std::string_view> bracketed(std::string_view text, std::size_t from, char open, char close)
{
    if (from >= text.size() || text[from] != open)
        return std::nullopt;
    int depth = 0;
    for (std::size_t k = from; k < text.size(); ++k) {
        depth += text[k] == open ? 1 : text[k] == close ? -1 : 0;
        if (depth == 0)
            return text.substr(from + 1, k - from - 1);
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> nodeMetadata(const onnx::NodeProto& node, std::string_view key)
{
    const auto* field = node.GetDescriptor()->FindFieldByNumber(kMetadataPropsField);
    if (field != nullptr && field->is_repeated()
        && field->type() == google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
        const auto* reflection = node.GetReflection();
        for (int k = 0; k < reflection->FieldSize(node, field); ++k) {
            onnx::StringStringEntryProto entry;
            if (entry.ParseFromString(reflection->GetRepeatedMessage(node, field, k).SerializeAsString())
                && entry.key() == key)
                return entry.value();
        }
        return std::nullopt;
    }
    const auto& unknown = node.unknown_fields();
    for (int k = 0; k < unknown.field_count(); ++k) {
        const auto& f = unknown.field(k);
        if (f.number() != kMetadataPropsField
            || f.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
            continue;
        onnx::StringStringEntryProto entry;
        if (entry.ParseFromString(f.length_delimited()) && entry.key() == key)
            return entry.value();
    }
    return std::nullopt;
}

std::optional<FxCall> parseFxNode(std::string_view text)
{
    constexpr std::string_view kTarget = "target=torch.ops.";
    const auto target = text.find(kTarget);
    if (target == std::string_view::npos)
        return std::nullopt;
    const auto begin = target + kTarget.size();
    const auto end = text.find(']', begin);
    if (end == std::string_view::npos)
        return std::nullopt;
    FxCall call { std::string(text.substr(begin, end - begin)), {} };
    constexpr std::string_view kArgs = "args = ";
    const auto args = text.find(kArgs, end);
    if (args == std::string_view::npos)
        return call;
    const auto inside = bracketed(text, args + kArgs.size(), '(', ')');
    if (!inside)
        return std::nullopt;
    call.args = splitTopLevel(*inside);
    return call;
}

std::string modulePathOfScopes(std::string_view scopes)
{
    const auto inside = bracketed(scopes, 0, '[', ']');
    if (!inside)
        return {};
    auto items = splitTopLevel(*inside);
    // The last scope is the operator's own name; the one before it the innermost module.
    if (items.size() < 2)
        return {};
    std::string module = items[items.size() - 2];
    if (module.size() >= 2 && (module.front() == '\'' || module.front() == '"')
        && module.back() == module.front())
        module = module.substr(1, module.size() - 2);
    return module;
}

} // namespace headroom::onnximport
