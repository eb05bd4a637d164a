#include "Language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QSettings>
#include <QTranslator>

namespace headroom::ui {

namespace {

const QString kTranslatorName = QStringLiteral("headroomTranslator");

QTranslator* translator(QCoreApplication& app, const QString& name)
{
    auto* t = new QTranslator(&app);
    t->setObjectName(kTranslatorName + name);
    return t;
}

} // namespace

QStringList Language::available()
{
    return { QStringLiteral("en"), QStringLiteral("zh_CN"), QStringLiteral("ko") };
}

QString Language::chosen()
{
    const QString name = QSettings().value(QLatin1String(kSettingsKey)).toString();
    return available().contains(name) ? name : QString();
}

void Language::choose(const QString& name)
{
    QSettings settings;
    if (available().contains(name))
        settings.setValue(QLatin1String(kSettingsKey), name);
    else
        settings.remove(QLatin1String(kSettingsKey));
}

QLocale Language::locale()
{
    const QString name = chosen();
    return name.isEmpty() ? QLocale::system() : QLocale(name);
}

QString Language::nativeName(const QString& name)
{
    if (name.startsWith(QLatin1String("zh")))
        return QStringLiteral("简体中文");
    if (name.startsWith(QLatin1String("ko")))
        return QStringLiteral("한국어");
    return QStringLiteral("English");
}

bool Language::install(QCoreApplication& app)
{
    for (QTranslator* old : app.findChildren<QTranslator*>(Qt::FindDirectChildrenOnly)) {
        if (old->objectName().startsWith(kTranslatorName)) {
            QCoreApplication::removeTranslator(old);
            delete old;
        }
    }
    const QLocale wanted = locale();
    QLocale::setDefault(wanted);
    // Qt's own strings (standard buttons, file dialogs), then ours; the last installed is asked first.
    QTranslator* qt = translator(app, QStringLiteral("Qt"));
    const bool qtLoaded = qt->load(wanted, QStringLiteral("qtbase"), QStringLiteral("_"),
        QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    if (qtLoaded)
        QCoreApplication::installTranslator(qt);
    QTranslator* ours = translator(app, QStringLiteral("Headroom"));
    const bool oursLoaded
        = ours->load(wanted, QStringLiteral("headroom"), QStringLiteral("_"), QStringLiteral(":/i18n"));
    if (oursLoaded)
        QCoreApplication::installTranslator(ours);
    // English needs no file; a language Headroom speaks does need Qt's.
    return qtLoaded || !oursLoaded;
}

} // namespace headroom::ui
