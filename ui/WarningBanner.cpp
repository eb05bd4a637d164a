#include "WarningBanner.h"

#include "QtText.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {

/// Warnings shown before "Show all": enough to see what it is about, never the whole editor.
constexpr qsizetype kCollapsedLines = 3;

} // namespace

WarningBanner::WarningBanner(QWidget* parent)
    : QFrame(parent)
{
    setFrameShape(QFrame::StyledPanel);
    // Amber with dark text, set together so it reads the same on light and dark themes.
    setStyleSheet(
        QStringLiteral("headroom--ui--WarningBanner { background: #fff4ce; border: 1px solid #e0b040; "
                       "border-radius: 3px; } QLabel, QToolButton { color: #3d2f00; }"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    auto* icon = new QLabel(this);
    icon->setObjectName(QStringLiteral("warningIconLabel"));
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(size, size));
    icon->setAlignment(Qt::AlignTop);
    layout->addWidget(icon);

    auto* text = new QVBoxLayout;
    text->setContentsMargins(0, 0, 0, 0);
    text->setSpacing(2);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("warningTitleLabel"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    text->addWidget(m_title);
    m_list = new QLabel(this);
    m_list->setObjectName(QStringLiteral("warningListLabel"));
    m_list->setWordWrap(true);
    m_list->setTextFormat(Qt::RichText);
    m_list->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text->addWidget(m_list);
    layout->addLayout(text, 1);

    m_more = new QToolButton(this);
    m_more->setObjectName(QStringLiteral("showAllWarningsButton"));
    m_more->setAutoRaise(true);
    layout->addWidget(m_more, 0, Qt::AlignTop);
    connect(m_more, &QToolButton::clicked, this, [this] {
        m_expanded = !m_expanded;
        showLines();
    });
    hide();
}

void WarningBanner::setAnalysis(const Analysis& analysis)
{
    QStringList lines;
    for (const auto& w : analysis.warnings)
        lines << (w.layer.empty() ? qs(w.message) : tr("%1: %2").arg(qs(w.layer), qs(w.message)));
    if (lines == m_lines)
        return; // an edit elsewhere: keep the list as the user left it
    m_lines = lines;
    m_expanded = false;
    showLines();
}

void WarningBanner::showLines()
{
    setVisible(!m_lines.isEmpty());
    if (m_lines.isEmpty())
        return;
    const qsizetype n = m_lines.size();
    m_title->setText(n == 1 ? tr("These numbers rest on an assumption you should check:")
                            : tr("These numbers rest on %1 assumptions you should check:").arg(n));
    const qsizetype shown = m_expanded ? n : std::min(n, kCollapsedLines);
    QString html;
    for (qsizetype k = 0; k < shown; ++k)
        html += QStringLiteral("<li>%1</li>").arg(m_lines[k].toHtmlEscaped());
    m_list->setText(QStringLiteral("<ul style=\"margin: 0px; -qt-list-indent: 1;\">%1</ul>").arg(html));
    m_more->setVisible(n > kCollapsedLines);
    m_more->setText(m_expanded ? tr("Show fewer") : tr("Show all %1").arg(n));
}

} // namespace headroom::ui
