#pragma once
// The processor time the benchmarks log beside Qt's wall-clock figures: the project's machine is shared,
// and under load the wall clock is several times the processor time.
#include <ctime>

namespace headroom::bench {

/// Processor time of this process (every thread), milliseconds.
inline double cpuMs()
{
    timespec t {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

} // namespace headroom::bench
