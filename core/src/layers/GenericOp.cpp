// GenericOp: an operator Headroom has no layer for (an ONNX node it cannot map, a custom op written by
// hand), modelled by a stated, conservative assumption instead of being thrown away: it keeps every
// input for backward (what an elementwise or reducing op with a derivative needs at most of its
// inputs), produces one new tensor of the given shape, and holds `parameters` trainable elements.
// Every use carries a warning naming the operator, so the assumption is always on screen.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

const char* const kFollowInput = "float";

AttributeSpec shapeAttr()
{
    AttributeSpec s;
    s.name = "output_shape";
    s.type = AttributeType::IntList;
    s.minInt = 1;
    s.maxInt = std::int64_t { 1 } << 40;
    s.help = "The output's shape per sample (without the batch axis)";
    return s;
}

std::string plural(std::size_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

class GenericOpKind final : public DescribedKind
{
public:
    GenericOpKind()
        : DescribedKind("GenericOp", LayerCategory::Structure,
            "An operator Headroom does not model: keeps its inputs, makes one new tensor",
            { textAttr("op", "custom", "The operator's name, shown in the warning"), shapeAttr(),
                choiceAttr("output_dtype", kFollowInput,
                    { kFollowInput, "float32", "float16", "bfloat16", "float64", "int64", "int32", "uint8",
                        "bool" },
                    "\"float\": the type of its floating-point inputs (or the parameter type), "
                    "following the precision; otherwise a fixed element type"),
                intAttr("parameters", 0, "Trainable parameter elements the operator holds", 0),
                boolAttr("keeps_inputs", true, "Keeps every input for backward (the assumption)"),
                textAttr("reason", nullptr, "Why no exact layer models it", "none") })
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 1; }
    [[nodiscard]] std::size_t maxInputs() const override { return kManyInputs; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& attrs = ctx.attrs;
        const std::string dtypeChoice = attrs.choice("output_dtype");
        const DType dtype = dtypeChoice == kFollowInput ? ctx.activationType()
                                                        : parseDType(dtypeChoice).value_or(DType::Float32);
        LayerOutcome o;
        o.output = TensorInfo { Shape { attrs.integers("output_shape") }, dtype };
        if (o.output.shape.elements().isOverflow())
            return failure(
                "output_shape " + o.output.shape.toString() + " has more elements than fit 64 bits");
        const bool keeps = attrs.flag("keeps_inputs");
        if (keeps) {
            for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
                o.saved.push_back(SavedTensor::input(i));
        }
        const auto parameters = static_cast<std::uint64_t>(attrs.integer("parameters"));
        if (parameters > 0)
            o.params.push_back(parameter("weight", Count { parameters }));
        o.forwardFlopsPerSample = o.output.shape.elements(); // unknown: one per output element
        std::string warning = "operator '" + attrs.choice("op") + "'";
        if (const auto reason = attrs.text("reason"))
            warning += " (" + *reason + ")";
        else
            warning += " has no Headroom layer; it";
        warning += " is modelled as a generic operation that "
            + (keeps ? "keeps its " + plural(ctx.inputs.size(), "input", "inputs") + " for backward"
                     : std::string("keeps nothing for backward"))
            + " and makes a new " + std::string(dtypeName(dtype)) + " " + o.output.shape.toString()
            + " tensor"
            + (parameters > 0 ? ", with " + std::to_string(parameters) + " parameters" : std::string())
            + ": an assumption, the real operator may keep more or less";
        o.warnings.push_back(std::move(warning));
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeGenericOp()
{
    return std::make_unique<GenericOpKind>();
}

} // namespace headroom::layers
