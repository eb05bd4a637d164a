// libFuzzer harness for what is built on the plain-data readers (fuzz_plain_data covers those): any bytes
// read as a measured run (headroom/measured/MeasuredRun.h: a snapshot as pickle, JSON or memory_viz page,
// a profiler memory timeline, a Chrome trace) and, where one is read, measured and checked against the
// allocator simulation (AllocatorCheck.h), must give a run or an Error (one line, naming where), never a
// crash or a hang; a run's figures must hold together: every index in range, peaks at least every sample.
#include "headroom/measured/AllocatorCheck.h"
#include "headroom/measured/MeasuredRun.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "fuzz_measured_run: %s\n", what);
    std::abort();
}

headroom::PlainLimits fuzzLimits()
{
    headroom::PlainLimits limits;
    limits.maxInputBytes = 1 << 20;
    limits.maxDepth = 16;
    limits.maxNodes = 100'000;
    limits.maxContainerItems = 10'000;
    limits.maxStringBytes = 1 << 16;
    limits.maxMemo = 10'000;
    return limits;
}

void checkRun(const headroom::MeasuredRun& run)
{
    const std::size_t samples = run.samples.size();
    if (samples > 0 && (run.peakAllocatedSample >= samples || run.peakReservedSample >= samples)) {
        fail("a peak's sample out of range");
    }
    for (const auto& s : run.samples) {
        if (s.allocated > run.peakAllocated || (run.hasReserved && s.reserved > run.peakReserved)) {
            fail("a sample above its peak"); // a peak below one of its samples
        }
    }
    for (const std::size_t b : run.peakBlocks) {
        if (b >= run.blocks.size()) {
            fail("a peak block out of range");
        }
    }
    if (!(run.fragmentationAtPeak >= 0.0 && run.fragmentationAtPeak <= 1.0)) {
        fail("fragmentation outside 0..1");
    }
    for (const auto& step : run.steps) {
        if (step.firstSample > step.endSample || step.endSample > samples) {
            fail("a step out of range");
        }
        for (const auto& phase : step.phases) {
            if (phase.firstSample > phase.endSample || phase.endSample > samples) {
                fail("a phase out of range");
            }
        }
    }
    if (run.snapshot) {
        for (const auto& b : run.blocks) {
            if (b.stack >= run.snapshot->stacks.size()) {
                fail("a block's stack out of range");
            }
        }
    }
    const headroom::AllocatorCheck check = headroom::checkAllocator(run);
    if (check.divergences.size() > headroom::AllocatorCheck::kMaxDivergences
        || check.matchingSegmentEvents > check.recordedSegmentEvents) {
        fail("the allocator check's counts");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto run = headroom::readMeasuredRun(bytes, "fuzz.bin", fuzzLimits());
    if (run.ok()) {
        checkRun(run.value());
    } else if (run.error().message.empty() || run.error().message.find('\n') != std::string::npos) {
        fail("an error of more than one line"); // one line
    }
    return 0;
}
