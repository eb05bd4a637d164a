// Gather of computed ids from a stored [rows, dim] table -> Embedding.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void gather(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
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
    ctx.push(PendingLayer{"Embedding", json{{"num_embeddings", (*table)[0]}, {"embedding_dim", (*table)[1]}},
        {n.input(1)}, n.output(0), i});
}

} // namespace

void addGather(Operators& table)
{
    table.push_back({"Gather", &gather});
}

} // namespace headroom::onnximport::ops
