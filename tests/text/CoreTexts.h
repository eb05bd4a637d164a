#pragma once

// The core's English texts that the GUI and the report show, gathered from the core itself: what
// text/CoreText.cpp must list (tests/text) and what the compiled translations must hold (tests/ui).
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/RunComparison.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"
#include "headroom/step/StepTimeline.h"
#include "headroom/support/Resources.h"

#include <set>
#include <string>

namespace headroom::test {

/// The core's English texts the GUI and the report show (what CoreText must list).
inline std::set<std::string> coreTexts()
{
    std::set<std::string> texts;
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        texts.insert(std::string(kind->summary()));
        for (const auto& a : kind->attributes()) {
            if (!a.help.empty())
                texts.insert(a.help);
            if (!a.whenOmitted.empty())
                texts.insert(a.whenOmitted);
        }
    }
    for (const auto c : kAllComponents)
        texts.insert(std::string(componentLabel(c)));
    for (const auto o : allOptimizers())
        texts.insert(std::string(optimizerLabel(o)));
    for (const auto p :
        { Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16, Precision::Bf16 })
        texts.insert(std::string(precisionLabel(p)));
    for (const auto c : allCheckpointings())
        texts.insert(std::string(checkpointingLabel(c)));
    for (const auto a : { AttentionImplementation::Sdpa, AttentionImplementation::Eager })
        texts.insert(std::string(attentionLabel(a)));
    for (const auto s : allShardings())
        texts.insert(std::string(shardingLabel(s)));
    for (const auto i : allOptimizerImplementations())
        texts.insert(std::string(optimizerImplementationLabel(i)));
    for (const auto p : { StepPhase::Forward, StepPhase::Backward, StepPhase::OptimizerStep })
        texts.insert(std::string(stepPhaseLabel(p)));
    // A measured run's kind and the comparison's components: the report prints them.
    for (const auto k : { RunFileKind::SnapshotPickle, RunFileKind::SnapshotJson, RunFileKind::SnapshotHtml,
             RunFileKind::MemoryTimeline, RunFileKind::ChromeTrace })
        texts.insert(std::string(runFileKindLabel(k)));
    for (std::size_t c = 0; c < kRunComponents; ++c)
        texts.insert(std::string(runComponentLabel(static_cast<RunComponent>(c))));
    // The presets' descriptions: the report prints them.
    for (const auto& preset : listPresets(HEADROOM_TEST_SOURCE_DIR "/resources")) {
        if (const auto network = loadModelFile(preset.path); network && !network->description.empty())
            texts.insert(network->description);
    }
    return texts;
}

} // namespace headroom::test
