// Gather of computed ids from a stored [rows, dim] table -> Embedding; one stored index of a computed
// tensor -> Select.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// One stored index of a computed tensor (`x[:, 0]`, ViT's class token) -> Select.
void select(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto* indices = ctx.graph().type(n.input(1));
    const auto index = ctx.graph().constantNumbers(n.input(1), 1);
    if (indices == nullptr || indices->rank() != 0 || !index || index->size() != 1) {
        ctx.refuse(i, "only one stored index (x[:, k], a Select) of a computed tensor has a Headroom layer");
        return;
    }
    const auto axis = featureAxisOf(ctx, i, attrInt(n, "axis").value_or(0), n.input(0), "gathered axis");
    if (!axis)
        return;
    const auto k = saturatedInteger(index->front());
    if (!k) {
        ctx.reject(i, "its index is not a number");
        return;
    }
    ctx.emit(i, "Select", json { { "dim", *axis }, { "index", *k } });
}

void gather(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
    if (n.input_size() == 2 && g.carriesData(n.input(0)) && !g.isDynamic(n.input(1))) {
        select(ctx, i);
        return;
    }
    if (n.input_size() != 2 || g.isDynamic(n.input(0)) || !g.isDynamic(n.input(1))
        || attrInt(n, "axis").value_or(0) != 0) {
        ctx.refuse(i, "only a lookup of computed ids in a stored table (an Embedding) has a Headroom layer");
        return;
    }
    const auto table = ctx.weightDims(i, n.input(0), "table");
    if (!table)
        return;
    if (table->size() != 2) {
        ctx.refuse(i, "its table " + joinDims(*table) + " is not a matrix");
        return;
    }
    ctx.push(PendingLayer { "Embedding",
        json { { "num_embeddings", (*table)[0] }, { "embedding_dim", (*table)[1] } }, { n.input(1) },
        n.output(0), i });
}

} // namespace

void addGather(Operators& table)
{
    table.push_back({ "Gather", &gather });
}

} // namespace headroom::onnximport::ops
