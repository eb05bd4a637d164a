// headroom gpus: the GPU catalogue.
#include "Command.h"
#include "Output.h"
#include "PlanFromOptions.h"
#include "TextTable.h"
#include "headroom/support/Format.h"

namespace headroom::cli {

namespace {

int runGpus(const Options& o, const CommandContext& c)
{
    const GpuCatalog catalog = loadCatalog(c.executablePath);
    if (o.json) {
        auto list = nlohmann::ordered_json::array();
        for (const auto& g : catalog.gpus()) {
            list.push_back({ { "name", g.name }, { "vendor", g.vendor }, { "family", g.family },
                { "memory_bytes", g.memoryBytes }, { "bandwidth_gbps", g.bandwidthGBps },
                { "fp32_tflops", g.fp32Tflops }, { "fp16_tflops", g.fp16Tflops },
                { "bf16_tflops", g.bf16Tflops }, { "link_gbps", g.linkGBps },
                { "pcie_gen", g.pcieGeneration } });
        }
        writeJson(c.out, std::move(list), 2);
        return kExitOk;
    }
    using Align = TextTable::Align;
    TextTable table({ { "GPU" }, { "Vendor" }, { "Memory", Align::Right }, { "GB/s", Align::Right },
        { "FP32 TF", Align::Right }, { "Link GB/s", Align::Right }, { "PCIe", Align::Right } });
    for (const auto& g : catalog.gpus())
        table.addRow({ g.name, g.vendor, formatBytes(g.memoryBytes), shortNumber(g.bandwidthGBps),
            shortNumber(g.fp32Tflops), g.linkGBps > 0 ? shortNumber(g.linkGBps) : "?",
            g.pcieGeneration > 0 ? std::to_string(g.pcieGeneration) : "?" });
    table.print(c.out);
    return kExitOk;
}

} // namespace

const Command& gpusCommand()
{
    static const Command command {
        .name = "gpus",
        .usage = "[--json]",
        .summary = "the GPU catalogue",
        .description
        = "Lists the GPU catalogue: name, vendor, memory, memory bandwidth, fp32 peak, GPU-to-GPU link\n"
          "bandwidth within a node (GB/s each way: NVLink, else PCIe x16; ? unknown) and PCIe generation,\n"
          "as a table or, with --json, as a JSON array (also the fp16 and bf16 peaks). --gpu takes any of\n"
          "these names.\n",
        .takesFile = false,
        .options = { { "--json" } },
        .run = runGpus,
    };
    return command;
}

} // namespace headroom::cli
