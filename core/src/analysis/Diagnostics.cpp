// Errors and warnings of one analysis (see Diagnostics.h).
#include "Diagnostics.h"

#include <utility>

namespace headroom::analysis {

void Diagnostics::record(const Error& error)
{
    if (!m_error)
        m_error = error;
}

void Diagnostics::fail(std::string message, std::string location)
{
    record(Error { std::move(message), std::move(location) });
    m_stopped = true;
}

void Diagnostics::warnNetwork(const std::string& message)
{
    m_warnings.push_back(AnalysisWarning { "", message });
}

void Diagnostics::warnLayer(
    const std::vector<std::string>& messages, const std::string& specPath, const std::string& name)
{
    for (const auto& message : messages) {
        if (m_warned.insert(specPath + '\n' + message).second)
            m_warnings.push_back(AnalysisWarning { name, message });
    }
}

void Diagnostics::moveInto(Analysis& analysis)
{
    analysis.error = std::move(m_error);
    analysis.warnings = std::move(m_warnings);
}

} // namespace headroom::analysis
