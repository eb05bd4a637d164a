#include "headroom/step/AllocationTrace.h"

#include "headroom/support/Count.h"

namespace headroom {

std::string_view traceKindName(TraceKind k) noexcept
{
    switch (k) {
    case TraceKind::Weights:
        return "weights";
    case TraceKind::Input:
        return "input";
    case TraceKind::Activation:
        return "activation";
    case TraceKind::ActivationGradient:
        return "activation_gradient";
    case TraceKind::Scratch:
        return "scratch";
    case TraceKind::AutocastCopy:
        return "autocast_copy";
    case TraceKind::ParameterGradient:
        return "parameter_gradient";
    case TraceKind::OptimizerState:
        return "optimizer_state";
    case TraceKind::OptimizerTemporary:
        return "optimizer_temporary";
    case TraceKind::CublasWorkspace:
        return "cublas_workspace";
    case TraceKind::CudnnWorkspace:
        return "cudnn_workspace";
    case TraceKind::Communication:
        return "communication";
    case TraceKind::Calibration:
        return "calibration";
    }
    return "";
}

std::string_view traceKindLabel(TraceKind k) noexcept
{
    switch (k) {
    case TraceKind::Weights:
        return "Weights";
    case TraceKind::Input:
        return "Input batch";
    case TraceKind::Activation:
        return "Activation";
    case TraceKind::ActivationGradient:
        return "Activation gradient";
    case TraceKind::Scratch:
        return "Scratch";
    case TraceKind::AutocastCopy:
        return "Autocast copy";
    case TraceKind::ParameterGradient:
        return "Parameter gradient";
    case TraceKind::OptimizerState:
        return "Optimizer state";
    case TraceKind::OptimizerTemporary:
        return "Optimizer temporary";
    case TraceKind::CublasWorkspace:
        return "cuBLAS workspace";
    case TraceKind::CudnnWorkspace:
        return "cuDNN workspace";
    case TraceKind::Communication:
        return "Communication buffer";
    case TraceKind::Calibration:
        return "Calibration (measured excess)";
    }
    return "";
}

std::string_view traceStageName(TraceStage s) noexcept
{
    switch (s) {
    case TraceStage::Setup:
        return "setup";
    case TraceStage::Forward:
        return "forward";
    case TraceStage::Backward:
        return "backward";
    case TraceStage::Optimizer:
        return "optimizer";
    }
    return "";
}

std::uint64_t AllocationTrace::bytesAt(const TraceEvent& e, std::int64_t batch) noexcept
{
    const Count bytes = Count { e.bytes.fixed } + Count { e.bytes.perSample } * Count::fromSigned(batch);
    return bytes.isOverflow() ? UINT64_MAX : bytes.value();
}

} // namespace headroom
