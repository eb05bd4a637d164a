// Dropout -> Dropout(p = ratio); the mask output is ignored.
#include "Families.h"

namespace headroom::onnximport::ops {

std::optional<double> dropoutRatio(const MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (ctx.opset() < 12)
        return attrFloat(n, "ratio").value_or(0.5);
    if (n.input_size() < 2 || n.input(1).empty())
        return 0.5;
    const auto r = ctx.graph().constantNumbers(n.input(1), 1);
    if (!r || r->size() != 1)
        return std::nullopt;
    return decimal(static_cast<float>(r->front()));
}

namespace {

using nlohmann::json;

void dropout(MappingContext& ctx, int i)
{
    const auto ratio = dropoutRatio(ctx, i);
    if (!ratio) {
        ctx.refuse(i, "its ratio is computed at run time");
        return;
    }
    if (!(*ratio >= 0.0 && *ratio <= 1.0)) {
        ctx.reject(i, "its ratio " + numberText(*ratio) + " is not a probability");
        return;
    }
    ctx.emit(i, "Dropout", json { { "p", *ratio } });
}

} // namespace

void addDropout(Operators& table)
{
    table.push_back({ "Dropout", &dropout });
}

} // namespace headroom::onnximport::ops
