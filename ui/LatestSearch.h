#pragma once

#include "headroom/support/Error.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <utility>

namespace headroom::ui {

/// The searches a panel runs off the GUI thread (Make It Fit's set-ups, the cluster's layouts), of which
/// only the latest counts (issue 35: an edit with the panel open took seconds). Each next() overtakes the
/// searches before it: one overtaken before it began skips its work, and the result of one that ends
/// after a newer one started is dropped, never shown. The panel that owns it calls next() in its
/// destructor, so a search still running hands its result nowhere.
template <typename T> class LatestSearch final
{
public:
    /// What a search hands the GUI thread: its answer, or null for a search skipped as overtaken.
    using Outcome = std::shared_ptr<const Result<T>>;

    LatestSearch() = default;
    LatestSearch(const LatestSearch&) = delete;
    LatestSearch& operator=(const LatestSearch&) = delete;

    /// Overtakes every search started so far; returns the generation of the search to start now.
    int next() { return ++*m_generation; }

    /// Runs `work` (a Result<T>() callable that holds its own copy of what it reads) on the global thread
    /// pool as search `generation`. On `context`'s thread once it is done, `show(outcome)` gets its
    /// answer, unless a newer search started meanwhile: then the result counts as dropped.
    template <typename Work, typename Show> void start(QObject* context, int generation, Work work, Show show)
    {
        auto promise = std::make_shared<QPromise<Outcome>>();
        auto* watcher = new QFutureWatcher<Outcome>(context);
        QObject::connect(watcher, &QFutureWatcherBase::finished, context,
            [this, watcher, generation, show = std::move(show)] {
                const QFuture<Outcome> future = watcher->future();
                const Outcome outcome = future.resultCount() > 0 ? future.result() : nullptr;
                watcher->deleteLater();
                --m_unfinished;
                if (generation != m_generation->load() || !outcome) {
                    ++m_dropped; // a newer search runs: its result is the one to show
                    return;
                }
                show(outcome);
            });
        ++m_unfinished;
        watcher->setFuture(promise->future());
        promise->start();
        QThreadPool::globalInstance()->start(
            [promise, latest = m_generation, run = m_run, generation, work = std::move(work)] {
                // A search that a newer one overtook before it started is not worth its work.
                if (latest->load() == generation) {
                    ++*run;
                    promise->addResult(std::make_shared<const Result<T>>(work()));
                }
                promise->finish();
            });
    }

    /// Results that arrived after a newer search had started, and were dropped.
    [[nodiscard]] int dropped() const noexcept { return m_dropped; }
    /// Searches started whose result (or end, for one overtaken before it ran) has not arrived yet.
    [[nodiscard]] int unfinished() const noexcept { return m_unfinished; }
    /// Searches that ran (the others were overtaken before they started).
    [[nodiscard]] int run() const noexcept { return m_run->load(); }

private:
    /// Shared with the searches, which skip their work when a newer one started before they did.
    std::shared_ptr<std::atomic<int>> m_generation = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<std::atomic<int>> m_run = std::make_shared<std::atomic<int>>(0);
    int m_dropped = 0;
    int m_unfinished = 0;
};

} // namespace headroom::ui
