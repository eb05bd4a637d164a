#pragma once

// The `headroom` binary run as a process, as scripts run it (tests/app).
#include <QProcess>
#include <QString>
#include <QStringList>

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

inline Run runHeadroom(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(HEADROOM_BINARY), args);
    if (!p.waitForFinished(60000))
        return {};
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
        QString::fromUtf8(p.readAllStandardError()) };
}
