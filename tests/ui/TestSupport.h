#pragma once

// Shared by the GUI tests: small networks whose numbers can be worked out by hand, a GPU
// catalogue that does not depend on the installed resources, and a DialogProvider that answers
// from queues instead of showing dialogs.

#include "DialogProvider.h"
#include "headroom/model/Network.h"
#include "headroom/setup/GpuCatalog.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStringList>
#include <QUrl>
#include <deque>
#include <optional>
#include <vector>

namespace headroom::test {

/// input [3, 8, 8] -> Conv2d(4, 3x3, pad 1) -> ReLU -> Flatten -> Linear(10).
/// Parameters: conv 4*3*3*3 + 4 = 112, linear 256*10 + 10 = 2570; 2682 in all.
inline Network tinyNetwork()
{
    Network n;
    n.name = "Tiny";
    n.input.shape.dims = { 3, 8, 8 };
    LayerSpec conv;
    conv.type = "Conv2d";
    conv.name = "conv";
    conv.attributes = { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } };
    LayerSpec relu;
    relu.type = "ReLU";
    LayerSpec flatten;
    flatten.type = "Flatten";
    LayerSpec fc;
    fc.type = "Linear";
    fc.name = "fc";
    fc.attributes = { { "out_features", 10 } };
    n.layers = { conv, relu, flatten, fc };
    return n;
}
constexpr std::uint64_t kTinyParams = 2682;

/// `count` Linear(64) + ReLU pairs on a [64] input, plus a Repeat block: a long network for
/// timing the slider path.
inline Network longNetwork(int count)
{
    Network n;
    n.name = "Long";
    n.input.shape.dims = { 64 };
    for (int i = 0; i < count / 2; ++i) {
        LayerSpec fc;
        fc.type = "Linear";
        fc.attributes = { { "out_features", 64 } };
        LayerSpec relu;
        relu.type = "ReLU";
        n.layers.push_back(fc);
        n.layers.push_back(relu);
    }
    return n;
}

inline GpuCatalog testCatalog()
{
    Gpu small;
    small.name = "Test GPU 8";
    small.vendor = "NVIDIA";
    small.family = "Test family";
    small.memoryBytes = 8ULL << 30;
    Gpu big = small;
    big.name = "Test GPU 24";
    big.memoryBytes = 24ULL << 30;
    big.aliases = { "TG24" };
    Gpu other = small;
    other.name = "Other GPU 16";
    other.vendor = "AMD";
    other.family = "Other family";
    other.memoryBytes = 16ULL << 30;
    return GpuCatalog { { small, big, other } };
}

/// Keeps tests away from the user's settings, and from each other's: ctest -j runs several test
/// executables at once, and one that clears the settings (every init()) must not clear another's
/// mid-test (tst_languagemenu's remembered language). One settings file per executable and scale.
inline void isolateSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTests"));
    QString name = QFileInfo(QCoreApplication::applicationFilePath()).fileName();
    if (qEnvironmentVariableIsSet("QT_SCALE_FACTOR"))
        name += QStringLiteral("-scale-") + qEnvironmentVariable("QT_SCALE_FACTOR");
    QCoreApplication::setApplicationName(QStringLiteral("HeadroomTests-") + name);
}

/// Answers the GUI's questions from queues and records what it was told.
class ScriptedDialogs final : public ui::DialogProvider
{
public:
    std::deque<QString> openNames;
    std::deque<QString> saveNames;
    std::deque<SaveChoice> saveChoices;
    /// Answers to "Custom..." (none: cancelled), and the GPU each question started from.
    std::deque<Gpu> customGpus;
    std::vector<std::optional<Gpu>> customGpuStarts;
    /// True: "Custom..." opens the real dialog (CustomGpuDialog), for a test to fill in.
    bool realCustomGpuDialog = false;
    /// Answers to "which sequence length?" on import (none: cancelled, the import keeps its default).
    std::deque<std::int64_t> sequenceLengths;
    int sequenceQuestions = 0;
    QStringList errors;
    QStringList suggestedSaveNames;
    int saveQuestions = 0;
    int abouts = 0;
    QString aboutText;
    QList<QUrl> openedUrls;

    QString openFileName(QWidget*, const QString&, const QString&, const QString&) override
    {
        return take(openNames);
    }
    QString saveFileName(QWidget*, const QString&, const QString& path, const QString&) override
    {
        suggestedSaveNames << path;
        return take(saveNames);
    }
    SaveChoice askToSave(QWidget*, const QString&) override
    {
        ++saveQuestions;
        if (saveChoices.empty())
            return SaveChoice::Cancel;
        const SaveChoice c = saveChoices.front();
        saveChoices.pop_front();
        return c;
    }
    void showError(QWidget*, const QString&, const QString& message) override { errors << message; }
    void showAbout(QWidget*, const QString&, const QString& text) override
    {
        ++abouts;
        aboutText = text;
    }
    std::optional<std::int64_t> trainingSequenceLength(
        QWidget*, const QString&, std::int64_t, std::int64_t) override
    {
        ++sequenceQuestions;
        if (sequenceLengths.empty())
            return std::nullopt;
        const std::int64_t length = sequenceLengths.front();
        sequenceLengths.pop_front();
        return length;
    }
    /// Answers to "which batch and precision was the run recorded at?" (none: cancelled, the run is not
    /// opened; an answer with empty fields: not known, the plan's assumed).
    std::deque<RunSetup> runSetups;
    int runSetupQuestions = 0;
    std::optional<RunSetup> measuredRunSetup(QWidget*, const QString&, std::int64_t, Precision) override
    {
        ++runSetupQuestions;
        if (runSetups.empty())
            return std::nullopt;
        const RunSetup answer = runSetups.front();
        runSetups.pop_front();
        return answer;
    }
    std::optional<Gpu> customGpu(QWidget* parent, const std::optional<Gpu>& start) override
    {
        customGpuStarts.push_back(start);
        if (realCustomGpuDialog)
            return DialogProvider::customGpu(parent, start);
        if (customGpus.empty())
            return std::nullopt;
        Gpu g = customGpus.front();
        customGpus.pop_front();
        return g;
    }

    /// False: as a desktop with no application for the URL.
    bool canOpenUrls = true;
    bool openUrl(const QUrl& url) override
    {
        openedUrls << url;
        return canOpenUrls;
    }

private:
    static QString take(std::deque<QString>& q)
    {
        if (q.empty())
            return {};
        QString s = q.front();
        q.pop_front();
        return s;
    }
};

} // namespace headroom::test
