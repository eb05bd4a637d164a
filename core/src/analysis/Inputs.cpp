// Stage: input resolution (see Inputs.h).
#include "Inputs.h"

#include "headroom/support/Format.h"

#include <algorithm>

namespace headroom::analysis {

std::optional<std::size_t> Scope::lookup(const std::string& name) const
{
    for (const Scope* s = this; s != nullptr; s = s->parent) {
        if (const auto it = s->names.find(name); it != s->names.end())
            return it->second;
        if (name == kRepeatInputName && s->repeatInput)
            return s->repeatInput;
    }
    return std::nullopt;
}

std::optional<Error> checkInput(const InputSpec& input)
{
    const auto& shape = input.shape;
    if (shape.rank() == 0)
        return Error { "input.shape must list at least one dimension", "input.shape" };
    for (std::size_t i = 0; i < shape.rank(); ++i) {
        if (shape.dims[i] <= 0) {
            const std::string where = "input.shape[" + std::to_string(i) + "]";
            return Error { where + " must be a positive integer", where };
        }
    }
    if (shape.elements().isOverflow())
        return Error { "input.shape " + shape.toString() + " has more elements than fit 64 bits",
            "input.shape" };
    return std::nullopt;
}

TensorInfo batchTensor(const InputSpec& input, Precision precision)
{
    TensorInfo info { input.shape, input.dtype };
    if (isPureHalf(precision) && isFloatingPoint(info.dtype))
        info.dtype = halfType(precision);
    return info;
}

std::optional<Error> resolveInputs(const LayerSpec& spec, const std::string& specPath, const Scope& scope,
    const TensorsByName& byFullName, std::size_t current, std::vector<std::size_t>& inputs)
{
    if (spec.inputs.empty()) {
        inputs.push_back(current);
        return std::nullopt;
    }
    for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
        const auto& ref = spec.inputs[i];
        auto found = scope.lookup(ref);
        if (!found) {
            if (const auto it = byFullName.find(ref); it != byFullName.end())
                found = it->second;
        }
        if (!found) {
            const std::string where = specPath + ".inputs[" + std::to_string(i) + "]";
            return Error { where + " " + quoteForMessage(ref)
                    + " does not name an earlier layer (or \"input\""
                    + (scope.repeatInput ? std::string(", \"repeat_input\"") : std::string()) + ")",
                where };
        }
        inputs.push_back(*found);
    }
    return std::nullopt;
}

std::string tensorName(const StepRecorder& step, const std::vector<LayerRow>& rows, std::size_t tensor)
{
    const auto& t = step.tensor(tensor);
    return t.producerRow ? rows[*t.producerRow].name : std::string(kNetworkInputName);
}

std::string duplicateNameError(
    const std::vector<LayerRow>& rows, const std::string& fullName, const std::string& specPath)
{
    const auto first
        = std::find_if(rows.begin(), rows.end(), [&](const LayerRow& r) { return r.name == fullName; });
    return specPath + ": its name " + quoteForMessage(fullName) + " is already the name of "
        + (first == rows.end() ? std::string("an earlier layer") : first->specPath)
        + " (an unnamed layer is called by its position, a layer in a Repeat block block.iteration.layer); "
          "give each layer a name of its own";
}

} // namespace headroom::analysis
