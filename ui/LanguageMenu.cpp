#include "LanguageMenu.h"

#include "Language.h"

#include <QActionGroup>
#include <QTranslator>

namespace headroom::ui {

LanguageMenu::LanguageMenu(QWidget* parent)
    : QMenu(tr("&Language"), parent)
    , m_group { new QActionGroup(this) }
{
    setObjectName(QStringLiteral("languageMenu"));
    m_group->setExclusive(true);
    const QString current = Language::chosen();
    const auto add = [&](const QString& name, const QString& text) {
        QAction* a = addAction(text);
        a->setObjectName(
            QStringLiteral("language_%1Action").arg(name.isEmpty() ? QStringLiteral("system") : name));
        a->setCheckable(true);
        a->setChecked(name == current);
        a->setData(name);
        m_group->addAction(a);
        connect(a, &QAction::triggered, this, [this, name] {
            if (name == Language::chosen())
                return;
            Language::choose(name);
            Q_EMIT languageChosen(restartNote(name));
        });
    };
    add(QString(), tr("System Language"));
    addSeparator();
    for (const QString& name : Language::available())
        add(name, Language::nativeName(name));
}

QString LanguageMenu::restartNote(const QString& language)
{
    // In the language chosen, which the user reads, not necessarily the one running; the system's
    // language when Headroom has no translation for it is English.
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    const char* source = QT_TR_NOOP("Headroom speaks %1 from its next start.");
    QTranslator translator;
    const bool translated
        = translator.load(locale, QStringLiteral("headroom"), QStringLiteral("_"), QStringLiteral(":/i18n"));
    QString text = translated ? translator.translate("headroom::ui::LanguageMenu", source) : QString();
    if (text.isEmpty())
        text = QString::fromLatin1(source);
    return text.arg(Language::nativeName(translated ? locale.name() : QStringLiteral("en")));
}

} // namespace headroom::ui
