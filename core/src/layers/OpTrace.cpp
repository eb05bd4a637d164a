#include "OpTrace.h"

#include "KindSupport.h"

#include <algorithm>

namespace headroom::layers {

OpTrace::OpTrace(const LayerContext& ctx)
    : m_ctx { ctx }
{
    for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
        Storage s;
        s.label = "input";
        s.perSample = ctx.inputs[i].shape.elements();
        s.dtype = ctx.inputs[i].dtype;
        s.inputIndex = i;
        m_storages.push_back(std::move(s));
    }
}

OpTrace::Tensor OpTrace::input(std::size_t index) const
{
    const auto& in = m_ctx.in(index);
    return Tensor { index, in.dtype, in.shape.elements() };
}

OpTrace::Tensor OpTrace::create(std::string label, Count perSample, DType dtype)
{
    Storage s;
    s.label = std::move(label);
    s.perSample = perSample;
    s.dtype = dtype;
    m_storages.push_back(std::move(s));
    return Tensor { m_storages.size() - 1, dtype, perSample };
}

void OpTrace::markKept(std::size_t storage)
{
    if (std::find(m_kept.begin(), m_kept.end(), storage) == m_kept.end())
        m_kept.push_back(storage);
}

void OpTrace::keep(const Tensor& t)
{
    m_storages[t.storage].unconditional = true;
    markKept(t.storage);
}

void OpTrace::keepForWeightOf(const Tensor& t, const std::string& module)
{
    auto& modules = m_storages[t.storage].forWeightOf;
    if (std::find(modules.begin(), modules.end(), module) == modules.end())
        modules.push_back(module);
    markKept(t.storage);
}

void OpTrace::keepFixed(std::string label, Count elements, DType dtype)
{
    Storage s;
    s.label = std::move(label);
    s.fixed = elements;
    s.dtype = dtype;
    s.unconditional = true;
    m_storages.push_back(std::move(s));
    m_kept.push_back(m_storages.size() - 1);
}

OpTrace::Tensor OpTrace::toLowerPrecision(const Tensor& t, const std::string& what)
{
    const DType half = halfType(m_ctx.precision);
    if (!autocast() || !isFloatingPoint(t.dtype) || t.dtype == half)
        return t;
    return create(what + " (" + std::string(dtypeName(half)) + " copy)", t.elements, half);
}

OpTrace::Tensor OpTrace::toFloat32(const Tensor& t, const std::string& what)
{
    if (!autocast() || !isFloatingPoint(t.dtype) || t.dtype == DType::Float32)
        return t;
    return create(what + " (float32 copy)", t.elements, DType::Float32);
}

OpTrace::Tensor OpTrace::linear(const Tensor& x, Count outPerSample, const std::string& name)
{
    const Tensor in = toLowerPrecision(x, name + " input");
    keep(in);
    return create(name + " output", outPerSample, in.dtype);
}

OpTrace::Tensor OpTrace::layerNorm(const Tensor& x, Count rows, const std::string& name)
{
    const Tensor in = toFloat32(x, name + " input");
    keep(in);
    keep(create(name + " mean", rows, DType::Float32));
    keep(create(name + " rstd", rows, DType::Float32));
    return create(name + " output", in.elements, in.dtype);
}

OpTrace::Tensor OpTrace::dropout(const Tensor& x, double p, const std::string& name)
{
    if (p == 0.0)
        return x;
    if (p < 1.0)
        keep(create(name + " mask", x.elements, DType::Bool));
    return create(name + " output", x.elements, x.dtype);
}

OpTrace::Tensor OpTrace::relu(const Tensor& x, const std::string& name)
{
    const Tensor out = create(name + " output", x.elements, x.dtype);
    keep(out);
    return out;
}

OpTrace::Tensor OpTrace::gelu(const Tensor& x, const std::string& name)
{
    keep(x);
    return create(name + " output", x.elements, x.dtype);
}

OpTrace::Tensor OpTrace::add(const Tensor& a, const Tensor& b, const std::string& name)
{
    return create(name, a.elements, promote(a.dtype, b.dtype));
}

std::vector<SavedTensor> OpTrace::saved(const Tensor& output) const
{
    std::vector<SavedTensor> out;
    for (const auto index : m_kept) {
        const auto& s = m_storages[index];
        SavedTensor t;
        if (s.inputIndex)
            t = SavedTensor::input(*s.inputIndex);
        else if (index == output.storage)
            t = SavedTensor::output();
        else
            t = SavedTensor::internal(s.label, s.perSample, s.dtype, s.fixed);
        t.label = s.label;
        if (!s.unconditional)
            t.onlyForInnerWeights = s.forWeightOf;
        out.push_back(std::move(t));
    }
    return out;
}

} // namespace headroom::layers
