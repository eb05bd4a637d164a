#pragma once

#include <QLocale>
#include <QString>
#include <QStringList>

class QCoreApplication;

namespace headroom::ui {

/// The language the GUI speaks: the one chosen in View > Language (kept in the settings under
/// "ui/language"), or the system's. install() loads Headroom's translation and Qt's own (file
/// dialogs, standard buttons: qtbase_*.qm from Qt's translations folder, Debian's
/// qt6-translations-l10n) for it; a new choice takes effect at the next start.
class Language final
{
public:
    static constexpr const char* kSettingsKey = "ui/language";

    /// The languages Headroom is translated to, as locale names: "en", "zh_CN", "ko".
    [[nodiscard]] static QStringList available();
    /// The chosen language ("" for the system's).
    [[nodiscard]] static QString chosen();
    static void choose(const QString& name);
    /// The locale the GUI is to use: the chosen language's, or the system's.
    [[nodiscard]] static QLocale locale();
    /// A language's name in that language ("한국어") for one of available(), or a locale name
    /// ("ko_KR") that falls back to one.
    [[nodiscard]] static QString nativeName(const QString& name);
    /// Installs the translations for locale() into `app` (replacing any installed before); false
    /// when Qt's own are missing for a translated language, so Qt's dialogs would stay English.
    static bool install(QCoreApplication& app);
};

} // namespace headroom::ui
