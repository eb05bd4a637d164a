// Dropout -> Dropout(p = ratio); the mask output is ignored.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void dropout(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    double ratio = 0.5;
    if (ctx.opset() < 12) {
        if (const auto r = attrFloat(n, "ratio"))
            ratio = *r;
    } else if (n.input_size() > 1 && !n.input(1).empty()) {
        const auto r = ctx.graph().constantNumbers(n.input(1), 1);
        if (!r || r->size() != 1) {
            ctx.refuse(i, "its ratio is computed at run time");
            return;
        }
        ratio = decimal(static_cast<float>(r->front()));
    }
    if (!(ratio >= 0.0 && ratio <= 1.0)) {
        ctx.reject(i, "its ratio " + numberText(ratio) + " is not a probability");
        return;
    }
    ctx.emit(i, "Dropout", json { { "p", ratio } });
}

} // namespace

void addDropout(Operators& table)
{
    table.push_back({ "Dropout", &dropout });
}

} // namespace headroom::onnximport::ops
