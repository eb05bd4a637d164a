#include "GpuSelector.h"

#include "QtText.h"
#include "UiText.h"

#include <QCompleter>
#include <QLineEdit>
#include <QStandardItemModel>
#include <QStringListModel>
#include <map>

namespace headroom::ui {

GpuSelector::GpuSelector(QWidget* parent)
    : QComboBox(parent)
    , m_items { new QStandardItemModel(this) }
    , m_names { new QStringListModel(this) }
{
    setObjectName(QStringLiteral("gpuComboBox"));
    setModel(m_items);
    setEditable(true);
    setInsertPolicy(QComboBox::NoInsert);
    setMaxVisibleItems(24);
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(24);
    lineEdit()->setPlaceholderText(tr("Type to search GPUs"));
    auto* completer = new QCompleter(m_names, this);
    completer->setObjectName(QStringLiteral("gpuCompleter"));
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    completer->setCompletionMode(QCompleter::PopupCompletion);
    setCompleter(completer);
    connect(completer, qOverload<const QString&>(&QCompleter::activated), this,
        [this](const QString& text) { selectByQuery(text); });
    connect(this, &QComboBox::activated, this, &GpuSelector::onActivated);
    connect(lineEdit(), &QLineEdit::editingFinished, this, [this] {
        const QString typed = lineEdit()->text();
        if (typed == itemText(m_current) || selectByQuery(typed))
            return;
        revert();
        if (!typed.trimmed().isEmpty())
            Q_EMIT notFound(typed.trimmed());
    });
}

QString GpuSelector::itemText(const Gpu& gpu)
{
    return tr("%1 (%2)").arg(qs(gpu.name), UiText::bytes(gpu.memoryBytes));
}

void GpuSelector::setCatalog(const GpuCatalog& catalog)
{
    m_catalog = catalog;
    const QSignalBlocker block(this);
    m_items->clear();
    QStringList names;
    // Group by vendor and family, in the catalogue's order of first appearance.
    std::vector<std::pair<std::string, std::string>> groups;
    for (const auto& g : m_catalog.gpus()) {
        const auto key
            = g.custom ? std::pair<std::string, std::string> { "", "" } : std::pair { g.vendor, g.family };
        if (std::find(groups.begin(), groups.end(), key) == groups.end())
            groups.push_back(key);
    }
    for (const auto& group : groups) {
        auto* header = new QStandardItem(
            group.first.empty() ? tr("Custom GPUs") : tr("%1 · %2").arg(qs(group.first), qs(group.second)));
        header->setFlags(Qt::NoItemFlags);
        header->setData(HeaderItem, KindRole);
        QFont bold = font();
        bold.setBold(true);
        header->setFont(bold);
        m_items->appendRow(header);
        for (std::size_t i = 0; i < m_catalog.gpus().size(); ++i) {
            const Gpu& g = m_catalog.gpus()[i];
            const auto key = g.custom ? std::pair<std::string, std::string> { "", "" }
                                      : std::pair { g.vendor, g.family };
            if (key != group)
                continue;
            auto* item = new QStandardItem(itemText(g));
            item->setData(static_cast<int>(i), GpuIndexRole);
            item->setData(GpuItem, KindRole);
            QStringList tip { qs(g.name) };
            if (!g.aliases.empty()) {
                QStringList aliases;
                for (const auto& a : g.aliases)
                    aliases << qs(a);
                tip << tr("Also: %1").arg(aliases.join(QStringLiteral(", ")));
            }
            item->setToolTip(tip.join(QLatin1Char('\n')));
            m_items->appendRow(item);
            names << itemText(g);
        }
    }
    auto* custom = new QStandardItem(tr("Custom..."));
    custom->setData(CustomItem, KindRole);
    custom->setToolTip(tr("A GPU of your own: its memory and, if you have them, its speed and links. On a "
                          "custom GPU, edits it"));
    m_items->appendRow(custom);
    m_names->setStringList(names);
    revert();
}

int GpuSelector::rowOf(const std::string& name) const
{
    for (int r = 0; r < m_items->rowCount(); ++r) {
        const QStandardItem* item = m_items->item(r);
        if (item->data(KindRole).toInt() != GpuItem)
            continue;
        const auto i = static_cast<std::size_t>(item->data(GpuIndexRole).toInt());
        if (i < m_catalog.gpus().size() && m_catalog.gpus()[i].name == name)
            return r;
    }
    return -1;
}

void GpuSelector::setCurrentGpu(const Gpu& gpu)
{
    m_current = gpu;
    revert();
}

void GpuSelector::revert()
{
    const QSignalBlocker block(this);
    const int row = rowOf(m_current.name);
    setCurrentIndex(row);
    if (row < 0)
        lineEdit()->setText(m_current.name.empty() ? QString() : itemText(m_current));
}

bool GpuSelector::selectByQuery(const QString& query)
{
    QString q = query.trimmed();
    for (int r = 0; r < m_items->rowCount(); ++r) {
        if (m_items->item(r)->text() == q && m_items->item(r)->data(KindRole).toInt() == GpuItem) {
            onActivated(r);
            return true;
        }
    }
    auto found = m_catalog.find(ss(q));
    if (!found)
        return false;
    const int row = rowOf(found->name);
    if (row < 0)
        return false;
    onActivated(row);
    return true;
}

void GpuSelector::onActivated(int index)
{
    const QStandardItem* item = m_items->item(index);
    if (item == nullptr) {
        revert();
        return;
    }
    switch (item->data(KindRole).toInt()) {
    case GpuItem: {
        const auto i = static_cast<std::size_t>(item->data(GpuIndexRole).toInt());
        m_current = m_catalog.gpus()[i];
        revert();
        Q_EMIT gpuSelected(m_current);
        break;
    }
    case CustomItem:
        revert();
        Q_EMIT customRequested();
        break;
    default:
        revert();
        break;
    }
}

} // namespace headroom::ui
