// ReportComposer's "Cluster layouts" section (ReportOptions::cluster): the cluster planner's layouts, as
// `headroom plan --gpus G --global-batch B` lists them (docs/planner.md, "Planning a cluster").
#include "ClusterText.h"
#include "ReportCanvas.h"
#include "ReportComposer.h"
#include "ReportFormatting.h"
#include "ReportStyle.h"
#include "TextTable.h"

#include <algorithm>
#include <vector>

namespace headroom::report {

using namespace detail;
using style::FontRole;

namespace {

/// The layouts' table: every column as wide as its widest cell, then all scaled alike to span the page
/// (narrowed cells are set up to a fifth smaller).
void layoutTable(ReportCanvas& canvas, const TextTable& table)
{
    std::vector<double> widths = table.naturalWidths(canvas);
    double total = 0;
    for (const double w : widths)
        total += w;
    for (auto& w : widths)
        w *= canvas.width() / total; // wider or narrower than the page: the table spans it
    table.paint(canvas, widths);
}

} // namespace

void ReportComposer::clusterSection(ReportCanvas& canvas) const
{
    const ClusterReport& cluster = *m_options.cluster;
    const ClusterPlan& planned = cluster.plan;
    const double lineH = canvas.lineHeight(FontRole::Small);
    const QString intro
        = tr("%1. Searched: %2. The layouts whose heaviest GPU fits with what PyTorch's caching allocator "
             "reserves, fastest first by the throughput model (with the pipeline bubble).")
              .arg(qs(plantext::clusterRequestText(cluster.request, m_plan.gpu)),
                  qs(plantext::clusterSearchedText(planned)));
    canvas.heading(
        tr("Cluster layouts"), canvas.paragraphHeight(intro, FontRole::Small, canvas.width()) + 4 * lineH);
    canvas.paragraph(intro, FontRole::Small, style::kMuted);
    canvas.advance(canvas.pt(3));
    if (planned.layouts.empty()) {
        canvas.paragraph(tr("Nothing fits: %1.").arg(qs(planned.nothingFits)), FontRole::Body, style::kText);
    } else {
        const bool tokens = std::any_of(planned.layouts.begin(), planned.layouts.end(),
            [](const ClusterLayout& l) { return l.throughput.tokensPerSecond > 0; });
        const std::vector<QString> header { tr("#"), tr("TP"), tr("PP"), tr("Schedule"), tr("CP"), tr("EP"),
            tr("DP"), tr("Sharding"), tr("Recompute"), tr("Batch"), tr("Tensors"), tr("Reserved"), tr("Step"),
            tr("Bubble"), tokens ? tr("Tokens/s/GPU") : tr("Samples/s") };
        constexpr int kLeft = Qt::AlignLeft;
        constexpr int kRight = Qt::AlignRight;
        const std::vector<int> alignments { kRight, kRight, kRight, kLeft, kRight, kRight, kRight, kLeft,
            kLeft, kLeft, kRight, kRight, kRight, kRight, kRight };
        std::vector<std::vector<QString>> body;
        for (std::size_t i = 0; i < planned.layouts.size(); ++i) {
            const plantext::ClusterLayoutRow r = plantext::clusterLayoutRow(planned.layouts[i]);
            body.push_back({ QString::number(i + 1), qs(r.tensorParallel), qs(r.pipelineParallel),
                qs(r.schedule), qs(r.contextParallel), qs(r.expertParallel), qs(r.dataParallel),
                qs(r.sharding), qs(r.recompute), qs(r.batch), qs(r.tensors), qs(r.reserved), qs(r.step),
                qs(r.bubble), qs(tokens ? r.tokensPerSecondPerGpu : r.samplesPerSecond) });
        }
        layoutTable(canvas, TextTable { header, body, alignments, {} });
        canvas.advance(canvas.pt(3));
        canvas.paragraph(
            tr("TP tensor (with sequence) parallel, PP pipeline stages, CP context parallel, EP expert "
               "parallel, DP data parallel; Batch the micro-batch × micro-batches per step on each "
               "data-parallel rank; Tensors the heaviest pipeline stage's GPU's peak by the tensors, "
               "Reserved "
               "what PyTorch's caching allocator reserves there at its peak plus the overhead; Step the "
               "slowest stage's step with the pipeline bubble (no communication timed)."),
            FontRole::Small, style::kMuted);
    }
    for (const std::string& what : planned.leftOut)
        canvas.paragraph(tr("Left out: %1").arg(qs(what)), FontRole::Small, style::kMuted);
    canvas.advance(canvas.pt(6));
}

} // namespace headroom::report
