#pragma once

// What every stage reports besides figures: the first error (later ones are consequences or wait for
// the first to be fixed), whether the walk had to stop, and the warnings, each once per layer spec.

#include "headroom/analysis/Analysis.h"
#include "headroom/support/Error.h"

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace headroom::analysis {

class Diagnostics final
{
public:
    /// Keeps the first error only.
    void record(const Error& error);
    /// A structural error that stops the walk (the rest of the file cannot be interpreted).
    void fail(std::string message, std::string location);
    [[nodiscard]] bool hasError() const noexcept { return m_error.has_value(); }
    [[nodiscard]] bool stopped() const noexcept { return m_stopped; }

    /// A warning about the whole network (from its importer).
    void warnNetwork(const std::string& message);
    /// A layer's warnings, once per spec (a Repeat block's iterations would repeat them).
    void warnLayer(
        const std::vector<std::string>& messages, const std::string& specPath, const std::string& name);

    /// Hands the error and the warnings to the analysis.
    void moveInto(Analysis& analysis);

private:
    std::optional<Error> m_error;
    std::vector<AnalysisWarning> m_warnings;
    std::unordered_set<std::string> m_warned; ///< spec path + message of each warning recorded
    bool m_stopped = false;
};

} // namespace headroom::analysis
