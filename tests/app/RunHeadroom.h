#pragma once

// The `headroom` binary run as a process, as scripts run it (tests/app).
#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

/// What the process wrote, byte for byte (tst_clihostile looks for raw control characters).
struct RunBytes
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

inline RunBytes runHeadroomBytes(const QStringList& args)
{
    QProcess p;
    // As a script without a screen runs it, whatever the developer's session has: with a display, a
    // model path that does not exist opens the GUI instead (CommandLine.h).
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(HEADROOM_BINARY), args);
    if (!p.waitForFinished(60000))
        return {};
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

inline Run runHeadroom(const QStringList& args)
{
    const RunBytes r = runHeadroomBytes(args);
    return { r.exitCode, QString::fromUtf8(r.out), QString::fromUtf8(r.err) };
}
