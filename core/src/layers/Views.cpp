// Shape and data-movement kinds: Permute, Transpose, Reshape, View, Unflatten, Squeeze, Unsqueeze,
// Contiguous, Expand, Narrow, Slice, Select. Shape lists describe one sample (no batch axis), as
// `input.shape`; axis indices count every axis of the tensor, the batch axis among them (0 unless a
// Transpose or Permute moved it: TensorInfo::batchAxis), as PyTorch's dim arguments. Permute and
// Transpose may move the batch axis; Narrow, Slice, Select and Contiguous keep it wherever it is (Select
// of an axis before it moves it one place forward); the reshaping kinds need it first. None keeps a tensor
// for backward (derivatives.yaml: permute, transpose, view, squeeze, unsqueeze, expand, narrow/slice and
// select need only sizes).
// - Views (Permute, Transpose, View, Unflatten, Squeeze, Unsqueeze, Expand, Narrow, Slice, Select, and
//   Reshape / Contiguous when no copy is needed) share their input's storage; their result is strided
//   (Layout.h) and a later reshape copies when ATen's computeStride says so (Tensor.reshape makes a
//   contiguous copy, _reshape_copy / clone + _unsafe_view; Tensor.contiguous clones).
// - Backward: the gradient of a view that keeps every element (permute, transpose, view, reshape,
//   squeeze, unsqueeze) is a view of the output gradient, as is a copy's (clone passes grad on); Expand's
//   is a new reduced tensor (at::sum_to), and Narrow / Slice / Select allocate an input-sized gradient
//   (slice_backward and select_backward fill zeros and copy grad in).
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <set>

namespace headroom::layers {
namespace {

AttributeSpec dimAttr(std::string name, json defaultValue, std::string help)
{
    return intAttr(std::move(name), std::move(defaultValue),
        std::move(help) + " (counting the batch axis as 0)", kMinDim);
}

/// A feature axis named by a dim argument, or an error naming it.
Result<std::size_t> axisOf(const std::string& name, std::int64_t dim, const TensorInfo& in)
{
    const auto axis = featureAxis(dim, in.shape.rank(), in.batchAxis);
    if (!axis)
        return failure(name + " " + std::to_string(dim) + " is not a feature axis of "
            + in.shape.toBatchedString(in.batchAxis)
            + (dim == static_cast<std::int64_t>(in.batchAxis) ? " (it is the batch axis)" : ""));
    return *axis;
}

/// A view of `in` with new per-sample shape and strides (unknown when the input's layout is unknown),
/// its batch axis at `batchAxis`.
TensorInfo viewOf(
    const TensorInfo& in, Shape shape, const std::optional<Strides>& strides, std::size_t batchAxis)
{
    if (!strides) {
        TensorInfo out { std::move(shape), in.dtype };
        out.contiguous = false;
        out.batchAxis = batchAxis;
        return out;
    }
    return stridedTensor(std::move(shape), in.dtype, *strides, batchAxis);
}

TensorInfo viewOf(const TensorInfo& in, Shape shape, const std::optional<Strides>& strides)
{
    return viewOf(in, std::move(shape), strides, 0);
}

LayerOutcome viewOutcome(TensorInfo output, bool gradientIsView)
{
    LayerOutcome o;
    o.output = std::move(output);
    o.outputAliasesInput = true;
    o.aliasedInputGradients = { gradientIsView };
    return o;
}

/// Permute and Transpose: reorders the axes (a view).
class PermuteKind final : public DescribedKind
{
public:
    explicit PermuteKind(bool transpose)
        : DescribedKind(transpose ? "Transpose" : "Permute", LayerCategory::Shape,
            transpose ? "Swaps two axes (a view)" : "Reorders the axes (a view)",
            transpose ? std::vector<AttributeSpec> { dimAttr("dim0", nullptr, "First axis"),
                dimAttr("dim1", nullptr, "Second axis") }
                      : std::vector<AttributeSpec> { listAttr("dims",
                          "The new order of the axes, counting the batch axis as 0: [0, 2, 3, 1] for "
                          "channels last, [1, 0, 2] for sequence-first",
                          kMinDim) })
        , m_transpose { transpose }
    {
    }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const std::size_t rank = in.shape.rank();
        const auto order = axisOrder(ctx, in);
        if (!order)
            return order.error();
        // The whole tensor's sizes (the batch axis as 0, a placeholder), reordered.
        std::vector<std::int64_t> sizes = in.shape.dims;
        sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(in.batchAxis), 0);
        Shape shape;
        std::size_t batchAxis = 0;
        for (std::size_t i = 0; i <= rank; ++i) {
            if ((*order)[i] == in.batchAxis)
                batchAxis = i;
            else
                shape.dims.push_back(sizes[(*order)[i]]);
        }
        std::optional<Strides> strides;
        if (const auto old = stridesOf(in)) {
            strides.emplace();
            for (const auto axis : *order)
                strides->push_back((*old)[axis]);
        } else if (std::is_sorted(order->begin(), order->end())) {
            return viewOutcome(in, true);
        }
        return viewOutcome(viewOf(in, shape, strides, batchAxis), true);
    }

private:
    /// The new order of the whole tensor's axes (the batch axis among them).
    [[nodiscard]] Result<std::vector<std::size_t>> axisOrder(
        const LayerContext& ctx, const TensorInfo& in) const
    {
        const std::size_t rank = in.shape.rank();
        const auto whole = static_cast<std::int64_t>(rank + 1);
        std::vector<std::size_t> order(rank + 1);
        std::iota(order.begin(), order.end(), std::size_t { 0 });
        if (m_transpose) {
            std::array<std::size_t, 2> ab {};
            for (std::size_t k = 0; k < 2; ++k) {
                const std::string name = k == 0 ? "dim0" : "dim1";
                const std::int64_t given = ctx.attrs.integer(name);
                const std::int64_t d = given < 0 ? given + whole : given;
                if (d < 0 || d >= whole)
                    return failure(name + " " + std::to_string(given) + " is not an axis of "
                        + in.shape.toBatchedString(in.batchAxis));
                ab[k] = static_cast<std::size_t>(d);
            }
            std::swap(order[ab[0]], order[ab[1]]);
            return order;
        }
        const auto dims = ctx.attrs.integers("dims");
        if (dims.size() != rank + 1)
            return failure("dims lists " + std::to_string(dims.size()) + " axes but the input "
                + in.shape.toBatchedString(in.batchAxis) + " has " + std::to_string(rank + 1));
        std::set<std::size_t> seen;
        for (std::size_t i = 0; i < dims.size(); ++i) {
            const std::int64_t d = dims[i] < 0 ? dims[i] + whole : dims[i];
            if (d < 0 || d >= whole || !seen.insert(static_cast<std::size_t>(d)).second)
                return failure("dims " + Shape { dims }.toString() + " is not a permutation of the axes 0 to "
                    + std::to_string(rank));
            order[i] = static_cast<std::size_t>(d);
        }
        return order;
    }

    bool m_transpose;
};

/// The per-sample shape a Reshape / View / Unflatten asks for, with one -1 inferred.
Result<Shape> resolvedShape(
    const std::string& name, std::vector<std::int64_t> dims, Count elements, const Shape& from)
{
    std::optional<std::size_t> inferred;
    Count known { 1 };
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == -1) {
            if (inferred)
                return failure(name + " " + Shape { dims }.toString() + " has more than one -1");
            inferred = i;
        } else if (dims[i] < 1) {
            return failure(
                name + " " + Shape { dims }.toString() + " must list positive sizes (and at most one -1)");
        } else {
            known *= Count::fromSigned(dims[i]);
        }
    }
    if (inferred) {
        if (known.value() == 0 || elements.value() % known.value() != 0)
            return failure(name + " " + Shape { dims }.toString() + " does not fit the "
                + std::to_string(elements.value()) + " elements of " + from.toString());
        dims[*inferred] = static_cast<std::int64_t>(elements.value() / known.value());
    } else if (known.value() != elements.value()) {
        return failure(name + " " + Shape { dims }.toString() + " has " + std::to_string(known.value())
            + " elements per sample but the input " + from.toString() + " has "
            + std::to_string(elements.value()));
    }
    return Shape { std::move(dims) };
}

/// Reshape (Tensor.reshape: a view or a copy) and View (Tensor.view: a view or an error).
class ReshapeKind final : public DescribedKind
{
public:
    explicit ReshapeKind(bool view)
        : DescribedKind(view ? "View" : "Reshape", LayerCategory::Shape,
            view ? "A view with a new shape (Tensor.view)"
                 : "A new shape: a view when the layout allows, else a copy (Tensor.reshape)",
            { listAttr("shape", "The new shape of one sample (no batch axis); one -1 is inferred", -1),
                optionalAttr(
                    intAttr("batch_axis", 0,
                        "Where the batch axis goes among the result's axes; the values of each sample "
                        "before it must be as many as before the input's",
                        0),
                    "where the input has it") })
        , m_view { view }
    {
    }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        auto shape = resolvedShape("shape", ctx.attrs.integers("shape"), in.shape.elements(), in.shape);
        if (!shape)
            return shape.error();
        // The batch axis stays an axis of its own: as many values of each sample before it as before the
        // input's (a sequence-first [T, B, E] -> [T, B, 8, 64]; [T, B, 3, E] -> [1, T, B, 3, E]).
        const auto& dims = shape.value().dims;
        const std::size_t batchAxis = ctx.attrs.has("batch_axis")
            ? static_cast<std::size_t>(ctx.attrs.integer("batch_axis"))
            : in.batchAxis;
        const auto before = [](const std::vector<std::int64_t>& d, std::size_t n) {
            return std::accumulate(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(n), Count { 1 },
                [](Count a, std::int64_t b) { return a * Count::fromSigned(b); });
        };
        if (batchAxis > dims.size() || before(dims, batchAxis) != before(in.shape.dims, in.batchAxis))
            return failure("shape " + shape.value().toString() + " with the batch axis at "
                + std::to_string(batchAxis) + " merges the batch axis of "
                + in.shape.toBatchedString(in.batchAxis)
                + " with values of each sample; Headroom keeps it an axis of its own");
        auto result = reshaped(in, shape.value(), batchAxis);
        if (m_view && !result.view)
            return failure("cannot view " + in.shape.toBatchedString(in.batchAxis) + " as "
                + shape.value().toBatchedString(batchAxis)
                + ": the input's layout (a permuted or sliced view) does not allow it; use Reshape, or "
                  "Contiguous first (PyTorch raises the same error)");
        LayerOutcome o;
        o.output = std::move(result.output);
        o.outputAliasesInput = result.view;
        o.aliasedInputGradients = { true };
        return o;
    }

private:
    bool m_view;
};

/// nn.Unflatten: splits one axis into several (always a view).
class UnflattenKind final : public DescribedKind
{
public:
    UnflattenKind()
        : DescribedKind("Unflatten", LayerCategory::Shape, "Splits one axis into several (a view)",
            { dimAttr("dim", nullptr, "Axis to split"),
                listAttr("unflattened_size", "The sizes it splits into; one -1 is inferred", -1) })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        auto axis = axisOf("dim", ctx.attrs.integer("dim"), in);
        if (!axis)
            return axis.error();
        auto parts = resolvedShape("unflattened_size", ctx.attrs.integers("unflattened_size"),
            Count::fromSigned(in.shape.dims[*axis]), Shape { { in.shape.dims[*axis] } });
        if (!parts)
            return parts.error();
        Shape shape;
        shape.dims.assign(in.shape.dims.begin(), in.shape.dims.begin() + static_cast<std::ptrdiff_t>(*axis));
        shape.dims.insert(shape.dims.end(), parts.value().dims.begin(), parts.value().dims.end());
        shape.dims.insert(shape.dims.end(), in.shape.dims.begin() + static_cast<std::ptrdiff_t>(*axis) + 1,
            in.shape.dims.end());
        auto result = reshaped(in, shape);
        return viewOutcome(std::move(result.output), true);
    }
};

/// Squeeze (drops size-1 axes) and Unsqueeze (inserts one): views.
class SqueezeKind final : public DescribedKind
{
public:
    explicit SqueezeKind(bool unsqueeze)
        : DescribedKind(unsqueeze ? "Unsqueeze" : "Squeeze", LayerCategory::Shape,
            unsqueeze ? "Inserts an axis of size 1 (a view)" : "Removes axes of size 1 (a view)",
            { unsqueeze ? dimAttr("dim", nullptr, "Position of the new axis")
                        : optionalAttr(dimAttr("dim", nullptr, "Axis to remove"), "every axis of size 1") })
        , m_unsqueeze { unsqueeze }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        Shape shape = in.shape;
        const auto strides = stridesOf(in);
        Strides newStrides = strides.value_or(Strides {});
        if (m_unsqueeze) {
            auto axis = axisOf("dim", ctx.attrs.integer("dim"),
                TensorInfo { Shape { std::vector<std::int64_t>(in.shape.rank() + 1, 1) } });
            if (!axis)
                return axis.error();
            shape.dims.insert(shape.dims.begin() + static_cast<std::ptrdiff_t>(*axis), 1);
            if (strides) { // ATen: the new axis's stride is the next axis's size x stride (1 at the end)
                const std::size_t at = *axis + 1;
                const std::int64_t stride = at < strides->size() ? (*strides)[at] * in.shape.dims[*axis] : 1;
                newStrides.insert(newStrides.begin() + static_cast<std::ptrdiff_t>(at), stride);
            }
        } else {
            std::vector<bool> drop(in.shape.rank(), false);
            if (ctx.attrs.has("dim")) {
                auto axis = axisOf("dim", ctx.attrs.integer("dim"), in);
                if (!axis)
                    return axis.error();
                drop[*axis] = in.shape.dims[*axis] == 1; // squeezing an axis of another size changes nothing
            } else {
                for (std::size_t d = 0; d < in.shape.rank(); ++d)
                    drop[d] = in.shape.dims[d] == 1;
            }
            shape.dims.clear();
            Strides kept { strides ? (*strides)[0] : 0 };
            for (std::size_t d = 0; d < in.shape.rank(); ++d) {
                if (drop[d])
                    continue;
                shape.dims.push_back(in.shape.dims[d]);
                if (strides)
                    kept.push_back((*strides)[d + 1]);
            }
            newStrides = kept;
        }
        return viewOutcome(
            viewOf(in, shape, strides ? std::optional<Strides> { newStrides } : std::nullopt), true);
    }

private:
    bool m_unsqueeze;
};

/// Tensor.contiguous(): the input itself when contiguous, else a contiguous copy.
class ContiguousKind final : public DescribedKind
{
public:
    ContiguousKind()
        : DescribedKind("Contiguous", LayerCategory::Shape,
            "A contiguous copy of a permuted or sliced view (Tensor.contiguous)", {})
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        LayerOutcome o;
        o.output = contiguousTensor(in.shape, in.dtype, in.batchAxis);
        o.outputAliasesInput = in.contiguous;
        o.aliasedInputGradients = { true };
        return o;
    }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }
};

/// Tensor.expand: repeats axes of size 1 without copying (stride 0); new leading axes may be added.
class ExpandKind final : public DescribedKind
{
public:
    ExpandKind()
        : DescribedKind("Expand", LayerCategory::Shape, "Broadcasts axes of size 1 to a larger size (a view)",
            { listAttr("size", "The new shape of one sample (no batch axis); -1 keeps an axis", -1) })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const auto size = ctx.attrs.integers("size");
        if (size.size() < in.shape.rank())
            return failure("size " + Shape { size }.toString() + " has fewer axes than the input "
                + in.shape.toString());
        const std::size_t added = size.size() - in.shape.rank();
        const auto strides = stridesOf(in);
        Shape shape;
        Strides newStrides { strides ? (*strides)[0] : 0 };
        for (std::size_t i = 0; i < size.size(); ++i) {
            const bool isNew = i < added;
            const std::int64_t old = isNew ? 1 : in.shape.dims[i - added];
            std::int64_t target = size[i];
            if (target == -1) {
                if (isNew)
                    return failure("size " + Shape { size }.toString() + ": -1 cannot name a new axis");
                target = old;
            }
            if (target < 1 || (old != 1 && target != old))
                return failure("cannot expand " + in.shape.toString() + " to " + Shape { size }.toString()
                    + ": only axes of size 1 can grow");
            shape.dims.push_back(target);
            newStrides.push_back(isNew || old != target ? 0 : (strides ? (*strides)[i - added + 1] : 0));
        }
        // Backward reduces the output gradient to the input's size (at::sum_to): a new tensor.
        return viewOutcome(viewOf(in, shape, strides ? std::optional<Strides> { newStrides } : std::nullopt),
            shape == in.shape);
    }
};

/// Narrow / Slice / Select: a view of part of one axis. Backward allocates an input-sized gradient.
class SliceKind final : public DescribedKind
{
public:
    enum class Form { Narrow, Slice, Select };
    explicit SliceKind(Form form)
        : DescribedKind(form == Form::Narrow ? "Narrow"
                : form == Form::Slice        ? "Slice"
                                             : "Select",
            LayerCategory::Shape,
            form == Form::Narrow      ? "length elements of one axis from start (a view)"
                : form == Form::Slice ? "x[..., start:end:step] along one axis (a view)"
                                      : "One index of an axis, which is removed (x[:, 0]; a view)",
            attributesFor(form))
        , m_form { form }
    {
    }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        auto axis = axisOf("dim", ctx.attrs.integer("dim"), in);
        if (!axis)
            return axis.error();
        const std::size_t whole = wholeAxis(*axis, in.batchAxis);
        const std::int64_t size = in.shape.dims[*axis];
        std::int64_t start = 0, length = 0, step = 1;
        switch (m_form) {
        case Form::Narrow:
            start = ctx.attrs.integer("start");
            length = ctx.attrs.integer("length");
            if (start < 0)
                start += size;
            if (start < 0 || start + length > size)
                return failure("start " + std::to_string(ctx.attrs.integer("start")) + " and length "
                    + std::to_string(length) + " go past the " + std::to_string(size) + " elements of dim "
                    + std::to_string(whole));
            break;
        case Form::Slice: {
            // Python slicing: negative indices count from the end, out-of-range ones are clamped.
            const auto clampIndex
                = [&](std::int64_t i) { return std::clamp(i < 0 ? i + size : i, std::int64_t { 0 }, size); };
            start = clampIndex(ctx.attrs.integer("start"));
            const std::int64_t end = ctx.attrs.has("end") ? clampIndex(ctx.attrs.integer("end")) : size;
            step = ctx.attrs.integer("step");
            length = end > start ? (end - start + step - 1) / step : 0;
            if (length == 0)
                return failure("the slice " + std::to_string(ctx.attrs.integer("start")) + ":"
                    + (ctx.attrs.has("end") ? std::to_string(ctx.attrs.integer("end")) : std::string())
                    + " of dim " + std::to_string(whole) + " (size " + std::to_string(size) + ") is empty");
            break;
        }
        case Form::Select:
            start = ctx.attrs.integer("index");
            if (start < 0)
                start += size;
            if (start < 0 || start >= size)
                return failure("index " + std::to_string(ctx.attrs.integer("index"))
                    + " is out of range for dim " + std::to_string(whole) + " of size "
                    + std::to_string(size));
            length = 1;
            break;
        }
        Shape shape = in.shape;
        auto strides = stridesOf(in);
        std::size_t batchAxis = in.batchAxis;
        if (m_form == Form::Select) {
            shape.dims.erase(shape.dims.begin() + static_cast<std::ptrdiff_t>(*axis));
            if (strides)
                strides->erase(strides->begin() + static_cast<std::ptrdiff_t>(whole));
            if (whole < batchAxis)
                --batchAxis;
        } else {
            shape.dims[*axis] = length;
            if (strides)
                (*strides)[whole] *= step;
        }
        return viewOutcome(viewOf(in, shape, strides, batchAxis), false);
    }

private:
    static std::vector<AttributeSpec> attributesFor(Form form)
    {
        std::vector<AttributeSpec> attrs { dimAttr("dim", nullptr, "Axis") };
        switch (form) {
        case Form::Narrow:
            attrs.push_back(intAttr("start", nullptr, "First index (negative counts from the end)", kMinDim));
            attrs.push_back(intAttr("length", nullptr, "Number of elements"));
            break;
        case Form::Slice: {
            attrs.push_back(intAttr("start", 0, "First index (negative counts from the end)", kMinDim));
            attrs.push_back(optionalAttr(
                intAttr("end", nullptr, "End index, excluded (negative counts from the end)", kMinDim),
                "the end of the axis"));
            attrs.push_back(intAttr("step", 1, "Step"));
            break;
        }
        case Form::Select:
            attrs.push_back(intAttr("index", nullptr, "Index (negative counts from the end)", kMinDim));
            break;
        }
        return attrs;
    }

    Form m_form;
};

} // namespace

std::unique_ptr<LayerKind> makePermute()
{
    return std::make_unique<PermuteKind>(false);
}
std::unique_ptr<LayerKind> makeTranspose()
{
    return std::make_unique<PermuteKind>(true);
}
std::unique_ptr<LayerKind> makeReshape()
{
    return std::make_unique<ReshapeKind>(false);
}
std::unique_ptr<LayerKind> makeView()
{
    return std::make_unique<ReshapeKind>(true);
}
std::unique_ptr<LayerKind> makeUnflatten()
{
    return std::make_unique<UnflattenKind>();
}
std::unique_ptr<LayerKind> makeSqueeze()
{
    return std::make_unique<SqueezeKind>(false);
}
std::unique_ptr<LayerKind> makeUnsqueeze()
{
    return std::make_unique<SqueezeKind>(true);
}
std::unique_ptr<LayerKind> makeContiguous()
{
    return std::make_unique<ContiguousKind>();
}
std::unique_ptr<LayerKind> makeExpand()
{
    return std::make_unique<ExpandKind>();
}
std::unique_ptr<LayerKind> makeNarrow()
{
    return std::make_unique<SliceKind>(SliceKind::Form::Narrow);
}
std::unique_ptr<LayerKind> makeSlice()
{
    return std::make_unique<SliceKind>(SliceKind::Form::Slice);
}
std::unique_ptr<LayerKind> makeSelect()
{
    return std::make_unique<SliceKind>(SliceKind::Form::Select);
}

} // namespace headroom::layers
