#pragma once

// What PyTorch's dynamo exporter records on each node (NodeProto.metadata_props, ONNX 1.16+): the FX node
// it came from ("pkg.torch.onnx.fx_node") and the module scopes around it ("pkg.torch.onnx.name_scopes").

#include <onnx/onnx_pb.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::onnximport {

/// The value of metadata entry `key` on `node`, or nullopt. Also read when the ONNX library Headroom is
/// built with predates the field (protobuf then keeps it among the node's unknown fields).
[[nodiscard]] std::optional<std::string> nodeMetadata(const onnx::NodeProto& node, std::string_view key);

/// The call an FX node's text describes: "%x : [num_users=1] = call_function[target=torch.ops.aten.
/// relu.default](args = (%a, True, 0.1), kwargs = {})" gives target "aten.relu.default" and the
/// top-level arguments as written ("%a", "True", "0.1").
struct FxCall
{
    std::string target;
    std::vector<std::string> args;
};
[[nodiscard]] std::optional<FxCall> parseFxNode(std::string_view text);

/// The PyTorch module path of the scopes "['', 'layer1', 'layer1.0', 'layer1.0.bn1', 'op_name']":
/// the innermost module ("layer1.0.bn1"); empty for an operator called outside any submodule.
[[nodiscard]] std::string modulePathOfScopes(std::string_view scopes);

} // namespace headroom::onnximport
