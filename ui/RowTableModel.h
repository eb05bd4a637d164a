#pragma once

#include <QAbstractTableModel>
#include <utility>
#include <vector>

namespace headroom::ui {

/// A table of values set all at once, one a row (the planner's set-ups, the cluster's layouts): it holds
/// the rows and answers the counts, the index checks and the roles no header answers; the model built on
/// it says what a cell shows (cell()) and what its headers say (header()).
template <typename Row> class RowTableModel : public QAbstractTableModel
{
public:
    [[nodiscard]] const std::vector<Row>& rows() const noexcept { return m_rows; }
    /// The value of a row, or null for a row that is not there.
    [[nodiscard]] const Row* rowAt(int row) const
    {
        if (row < 0 || row >= static_cast<int>(m_rows.size()))
            return nullptr;
        return &m_rows[static_cast<std::size_t>(row)];
    }

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override
    {
        return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
    }
    [[nodiscard]] int columnCount(const QModelIndex& parent = QModelIndex()) const override
    {
        return parent.isValid() ? 0 : m_columns;
    }
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override
    {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
            return {};
        return cell(m_rows[static_cast<std::size_t>(index.row())], index, role);
    }
    /// The columns' titles and their tooltips (header()); other roles and the rows' header as Qt has them.
    [[nodiscard]] QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override
    {
        if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
            return QAbstractTableModel::headerData(section, orientation, role);
        return header(section, role == Qt::ToolTipRole);
    }

protected:
    /// `columns`: the model's ColumnCount.
    RowTableModel(int columns, QObject* parent)
        : QAbstractTableModel(parent)
        , m_columns { columns }
    {
    }

    /// Replaces every row: one model reset, within which rowsReset() runs.
    void setRows(std::vector<Row> rows)
    {
        beginResetModel();
        m_rows = std::move(rows);
        rowsReset();
        endResetModel();
    }
    /// What the model works out from all its rows, once they are set.
    virtual void rowsReset() { }
    /// What `role` shows in the cell at `index`, whose row is `row`.
    [[nodiscard]] virtual QVariant cell(const Row& row, const QModelIndex& index, int role) const = 0;
    /// A column's title, or with `tip` its tooltip.
    [[nodiscard]] virtual QVariant header(int column, bool tip) const = 0;

private:
    std::vector<Row> m_rows;
    int m_columns;
};

} // namespace headroom::ui
