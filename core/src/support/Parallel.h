#pragma once

#include <cstddef>
#include <functional>

namespace headroom {

/// Runs work(0) ... work(n - 1) on the machine's cores (each index once, in any order); rethrows the
/// first exception a call threw once every thread has finished. Called from inside such work (a max
/// batch search inside a `compare` of every GPU), it runs the calls one after another on the calling
/// thread: the outer loop already keeps every core busy, and threads within threads would only contend.
void forEachInParallel(std::size_t n, const std::function<void(std::size_t)>& work);

/// The calls forEachInParallel() would run at once from the calling thread: 1 inside parallel work or on
/// a one-core machine, else the machine's cores.
[[nodiscard]] std::size_t parallelWidth() noexcept;

} // namespace headroom
