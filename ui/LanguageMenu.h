#pragma once

#include <QMenu>

class QActionGroup;

namespace headroom::ui {

/// View > Language: the system's language or one Headroom is translated to, each named in its own
/// language. The choice is kept in the settings (Language::choose) and takes effect at the next
/// start; languageChosen() carries a note saying so, in the chosen language.
class LanguageMenu final : public QMenu
{
    Q_OBJECT

public:
    explicit LanguageMenu(QWidget* parent = nullptr);

    /// What the GUI says after a choice, in the chosen language: "Headroom speaks 한국어 from its
    /// next start".
    [[nodiscard]] static QString restartNote(const QString& language);

Q_SIGNALS:
    void languageChosen(const QString& note);

private:
    QActionGroup* m_group;
};

} // namespace headroom::ui
