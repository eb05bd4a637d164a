#include "support/Parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace headroom {

namespace {
/// Whether this thread runs a call of forEachInParallel().
thread_local bool t_insideParallelWork = false;

/// Marks the thread as running parallel work for its lifetime, and restores what it was.
class InsideParallelWork final
{
public:
    InsideParallelWork() noexcept
        : m_was { t_insideParallelWork }
    {
        t_insideParallelWork = true;
    }
    ~InsideParallelWork() { t_insideParallelWork = m_was; }
    InsideParallelWork(const InsideParallelWork&) = delete;
    InsideParallelWork& operator=(const InsideParallelWork&) = delete;

private:
    bool m_was;
};
} // namespace

std::size_t parallelWidth() noexcept
{
    return t_insideParallelWork ? 1 : std::max(1U, std::thread::hardware_concurrency());
}

void forEachInParallel(std::size_t n, const std::function<void(std::size_t)>& work)
{
    const std::size_t threads = std::min(n, parallelWidth());
    std::atomic<std::size_t> next { 0 };
    std::vector<std::exception_ptr> errors(threads);
    const auto worker = [&](std::size_t t) {
        const InsideParallelWork inside;
        try {
            for (std::size_t i = next++; i < n; i = next++)
                work(i);
        } catch (...) {
            errors[t] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads);
    try {
        for (std::size_t t = 1; t < threads; ++t)
            pool.emplace_back(worker, t);
    } catch (const std::system_error&) {
        // No more threads to be had: the ones started and this one share the work.
    }
    if (threads > 0)
        worker(0);
    for (auto& thread : pool)
        thread.join();
    for (const auto& error : errors) {
        if (error)
            std::rethrow_exception(error);
    }
}

} // namespace headroom
