// Einsum of two computed tensors that is a batched matrix product (MaxViT's attention writes
// torch.einsum("B G H I D, B G H J D -> B G H I J", q, k) and "B G H I J, B G H J D -> B G H I D") -> MatMul,
// with a Permute first when the second operand is contracted on its last axis (k^T). torch.einsum runs such
// an equation as one bmm on the operands permuted to [batch..., rows, contracted] and [batch...,
// contracted, columns] and reshaped to three axes (ATen's sumproduct_pair), which is what torch.matmul does
// with q and k.transpose(-2, -1): the same tensors kept, the same copies of non-contiguous operands.
#include "Families.h"

#include <algorithm>
#include <cctype>

namespace headroom::onnximport::ops {

std::optional<EinsumTerms> parseEinsum(const std::string& equation)
{
    std::string e;
    for (const char c : equation) {
        if (c != ' ')
            e.push_back(c);
    }
    const auto arrow = e.find("->");
    if (arrow == std::string::npos || e.find("...") != std::string::npos)
        return std::nullopt;
    EinsumTerms t;
    t.output = e.substr(arrow + 2);
    const std::string lhs = e.substr(0, arrow);
    std::size_t start = 0;
    for (std::size_t comma = lhs.find(',');; comma = lhs.find(',', start)) {
        t.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    const auto letters = [](const std::string& s) {
        std::string sorted = s;
        std::sort(sorted.begin(), sorted.end());
        return std::all_of(s.begin(), s.end(), [](char c) {
            return std::isalpha(static_cast<unsigned char>(c));
        }) && std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    };
    if (!letters(t.output) || !std::all_of(t.inputs.begin(), t.inputs.end(), letters))
        return std::nullopt;
    return t;
}

namespace {

/// The product's form: `batch` letters leading every term, then rows i and contracted c in the first
/// operand, c and columns j (or, transposed, j and c) in the second, i and j in the result.
std::optional<bool> matrixProduct(const EinsumTerms& t)
{
    if (t.inputs.size() != 2)
        return std::nullopt;
    const std::string& a = t.inputs[0];
    const std::string& b = t.inputs[1];
    const std::string& out = t.output;
    const std::size_t rank = out.size();
    if (rank < 3 || a.size() != rank || b.size() != rank)
        return std::nullopt;
    const std::size_t lead = rank - 2;
    if (a.compare(0, lead, out, 0, lead) != 0 || b.compare(0, lead, out, 0, lead) != 0)
        return std::nullopt;
    const char i = a[lead], c = a[lead + 1], j = out[lead + 1];
    if (out[lead] != i || c == j || c == i || i == j)
        return std::nullopt;
    if (b[lead] == c && b[lead + 1] == j)
        return false;
    if (b[lead] == j && b[lead + 1] == c)
        return true;
    return std::nullopt;
}

void einsum(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
    const std::string equation = attrString(n, "equation", "");
    const auto terms = parseEinsum(equation);
    const auto form = terms ? matrixProduct(*terms) : std::nullopt;
    if (n.input_size() != 2 || !g.carriesData(n.input(0)) || !g.carriesData(n.input(1)) || !form) {
        ctx.refuse(i,
            "equation '" + cleanText(equation)
                + "': only a batched matrix product of two computed tensors (\"bhid,bhjd->bhij\", "
                  "\"bhij,bhjd->bhid\") has a Headroom layer");
        return;
    }
    for (const auto& in : n.input()) {
        const auto rank = ctx.rankOf(i, in);
        if (!rank)
            return;
        if (*rank != terms->output.size() || g.batchMergeOf(in).merged() || g.batchAxisOf(in) != 0) {
            ctx.refuse(i,
                "its operand '" + in + "' " + describe(g.type(in))
                    + " does not have the batch axis first "
                      "and separate, as the equation's rank "
                    + std::to_string(terms->output.size()));
            return;
        }
    }
    std::string second = n.input(1);
    if (*form) { // contracted on the second operand's last axis: k^T first, a view
        std::vector<std::int64_t> perm;
        for (std::size_t k = 0; k < terms->output.size(); ++k)
            perm.push_back(static_cast<std::int64_t>(k));
        std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
        second = n.output(0) + "/headroom_transposed";
        ctx.push(PendingLayer { "Permute", nlohmann::json { { "dims", perm } }, { n.input(1) }, second, i });
    }
    ctx.push(PendingLayer { "MatMul", nlohmann::json::object(), { n.input(0), second }, n.output(0), i });
}

} // namespace

void addEinsum(Operators& table)
{
    table.push_back({ "Einsum", &einsum });
}

} // namespace headroom::onnximport::ops
