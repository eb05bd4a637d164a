#pragma once

// What the tests of the main window share (tests/ui/tst_mainwindow*.cpp): a real MainWindow on the test
// catalogue with its dialogs answered from queues (TestSupport.h), and finding its widgets by name.
#include "MainWindow.h"
#include "PlanController.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Format.h"

#include <QString>
#include <QTest>
#include <memory>

namespace headroom::test {

template <typename T> inline T* child(const QObject& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (found == nullptr)
        qWarning("missing child %s", name);
    return found;
}

inline QString bytes(std::uint64_t n)
{
    return QString::fromStdString(formatBytes(n));
}

inline QString onnxFile(const char* name)
{
    return QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/") + QString::fromLatin1(name);
}

/// Makes the window each test drives: `network` on the test catalogue's first GPU, shown and active.
class MainWindowFixture
{
protected:
    struct Window
    {
        ui::MainWindow window;
        test::ScriptedDialogs* dialogs = nullptr;
    };
    std::unique_ptr<Window> makeWindow(const Network& network = test::tinyNetwork());
};

inline std::unique_ptr<MainWindowFixture::Window> MainWindowFixture::makeWindow(const Network& network)
{
    auto w = std::make_unique<Window>();
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    w->dialogs = dialogs.get();
    w->window.setDialogProvider(std::move(dialogs));
    const GpuCatalog catalog = test::testCatalog();
    w->window.setupPanel()->setCatalog(catalog);
    w->window.document()->resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    w->window.document()->resetNetwork(network, QString());
    w->window.resize(1400, 900);
    w->window.show();
    w->window.activateWindow();
    if (!QTest::qWaitForWindowActive(&w->window))
        qWarning("the window did not become active: its shortcuts will not fire");
    return w;
}

} // namespace headroom::test
