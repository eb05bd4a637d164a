#include "ErrorText.h"

#include "headroom/analysis/Analysis.h"

#include <QRegularExpression>
#include <QStringList>

namespace headroom::ui {

namespace {

// A layer's spec path, "layers[3]" or "layers[3].layers[0]", with what may follow it: an input
// ("inputs[1]"), or a key ("kernel_size", "name") with an optional index.
const QString kPath = QStringLiteral(R"(layers\[\d+\](?:\.layers\[\d+\])*)");

const QRegularExpression& pathWithSuffix()
{
    static const QRegularExpression re {
        QStringLiteral(R"(\b(%1)(?:\.inputs\[(\d+)\]|\.([A-Za-z_]\w*)(?:\[(\d+)\])?)?)").arg(kPath)
    };
    return re;
}

/// "layers[3] (Conv2d \"conv\"): rest" at the start of a message: the path, the type, the name, the rest.
const QRegularExpression& leadingLayer()
{
    static const QRegularExpression re {
        QStringLiteral(R"re(^(%1) \(([^)"\s]+)(?: "([^"]*)")?\):\s*(.*)$)re").arg(kPath),
        QRegularExpression::DotMatchesEverythingOption
    };
    return re;
}

/// "layers[3].kernel_size must be ..." or "layers[3]: ..." at the start of a message.
const QRegularExpression& leadingPath()
{
    static const QRegularExpression re { QStringLiteral(R"(^(%1)(?::\s*|\s+|(?=\.))(.*)$)").arg(kPath),
        QRegularExpression::DotMatchesEverythingOption };
    return re;
}

QString oneBased(const QString& zeroBased)
{
    return QString::number(zeroBased.toLongLong() + 1);
}

/// The parts of a message after the layer it is about: "kernel_size must be", "input 2 ...".
QString keyPhrase(const QString& rest)
{
    static const QRegularExpression input { QStringLiteral(R"(^\.inputs\[(\d+)\])") };
    static const QRegularExpression key { QStringLiteral(R"(^\.([A-Za-z_]\w*)(?:\[(\d+)\])?)") };
    if (const auto m = input.match(rest); m.hasMatch())
        return ErrorText::tr("input %1").arg(oneBased(m.captured(1))) + rest.mid(m.capturedLength());
    if (const auto m = key.match(rest); m.hasMatch()) {
        const QString name = m.captured(2).isEmpty()
            ? m.captured(1)
            : ErrorText::tr("%1 element %2").arg(m.captured(1), oneBased(m.captured(2)));
        return name + rest.mid(m.capturedLength());
    }
    return rest;
}

/// Every path inside a message in the table's numbering.
QString convertPaths(QString text)
{
    QString out;
    qsizetype last = 0;
    auto it = pathWithSuffix().globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        const QString layer = ErrorText::position(m.captured(1).toStdString());
        if (!m.captured(2).isEmpty())
            out += ErrorText::tr("input %1 of layer %2").arg(oneBased(m.captured(2)), layer);
        else if (m.captured(3) == QStringLiteral("layers"))
            out += ErrorText::tr("the layers of block %1").arg(layer);
        else if (!m.captured(3).isEmpty() && !m.captured(4).isEmpty())
            out += ErrorText::tr("%1 element %2 of layer %3")
                       .arg(m.captured(3), oneBased(m.captured(4)), layer);
        else if (!m.captured(3).isEmpty())
            out += ErrorText::tr("%1 of layer %2").arg(m.captured(3), layer);
        else
            out += ErrorText::tr("layer %1").arg(layer);
        last = m.capturedEnd();
    }
    out += text.mid(last);
    // The network's input and LoRA targets are lists too.
    static const QRegularExpression shape { QStringLiteral(R"(\binput\.shape\[(\d+)\])") };
    static const QRegularExpression target { QStringLiteral(R"(\blora\.targets\[(\d+)\])") };
    for (auto m = shape.match(out); m.hasMatch(); m = shape.match(out))
        out.replace(m.capturedStart(), m.capturedLength(),
            ErrorText::tr("dimension %1 of the input shape").arg(oneBased(m.captured(1))));
    for (auto m = target.match(out); m.hasMatch(); m = target.match(out))
        out.replace(m.capturedStart(), m.capturedLength(),
            ErrorText::tr("LoRA target %1").arg(oneBased(m.captured(1))));
    return out;
}

} // namespace

QString ErrorText::position(std::string_view specPath)
{
    return QString::fromStdString(layerNumber(specPath)); // the number every view gives the layer
}

std::string ErrorText::layerPathOf(const Error& error)
{
    static const QRegularExpression re { QStringLiteral("^%1").arg(kPath) };
    for (const std::string* s : { &error.location, &error.message }) {
        const auto m = re.match(QString::fromStdString(*s));
        if (m.hasMatch())
            return m.captured().toStdString();
    }
    return {};
}

QString ErrorText::forUser(const Error& error, const NameLookup& names)
{
    const QString text = printable(error.message);
    const auto label = [&](const QString& path, const QString& fallback) {
        const QString name = names ? names(path.toStdString()) : QString();
        return name.isEmpty() ? fallback : name;
    };
    if (const auto m = leadingLayer().match(text); m.hasMatch()) {
        const QString name = m.captured(3).isEmpty() ? label(m.captured(1), m.captured(2)) : m.captured(3);
        return tr("Layer %1 (%2): %3")
            .arg(position(m.captured(1).toStdString()), name, convertPaths(m.captured(4)));
    }
    if (const auto m = leadingPath().match(text); m.hasMatch()) {
        const QString pos = position(m.captured(1).toStdString());
        const QString rest = convertPaths(keyPhrase(m.captured(2)));
        const QString name = label(m.captured(1), QString());
        return name.isEmpty() ? tr("Layer %1: %2").arg(pos, rest)
                              : tr("Layer %1 (%2): %3").arg(pos, name, rest);
    }
    return convertPaths(text);
}

QString ErrorText::withoutLayer(const Error& error)
{
    const QString text = printable(error.message);
    if (const auto m = leadingLayer().match(text); m.hasMatch())
        return convertPaths(m.captured(4));
    if (const auto m = leadingPath().match(text); m.hasMatch())
        return convertPaths(keyPhrase(m.captured(2)));
    return convertPaths(text);
}

QString ErrorText::printable(std::string_view text)
{
    QString out;
    out.reserve(static_cast<qsizetype>(text.size()));
    const auto escape = [&out](unsigned char c) {
        out += QStringLiteral("\\x") + QStringLiteral("%1").arg(c, 2, 16, QLatin1Char('0')).toUpper();
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                escape(c);
            else
                out += QLatin1Char(static_cast<char>(c));
            ++i;
            continue;
        }
        const std::size_t length = c >= 0xc2 && c <= 0xdf ? 2
            : c >= 0xe0 && c <= 0xef                      ? 3
            : c >= 0xf0 && c <= 0xf4                      ? 4
                                                          : 0;
        bool valid = length > 0 && i + length <= text.size();
        for (std::size_t k = 1; valid && k < length; ++k)
            valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        const QString decoded
            = valid ? QString::fromUtf8(text.data() + i, static_cast<qsizetype>(length)) : QString();
        // Overlong forms and surrogates decode to U+FFFD; C1 controls print as nothing.
        if (!valid || decoded.contains(QChar::ReplacementCharacter)
            || (decoded.size() == 1 && decoded.front().unicode() >= 0x80
                && decoded.front().unicode() < 0xa0)) {
            escape(c);
            ++i;
            continue;
        }
        out += decoded;
        i += length;
    }
    return out;
}

} // namespace headroom::ui
