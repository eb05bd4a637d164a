#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace headroom::cli {

/// A plain-text table whose columns are as wide as their widest cell, two spaces apart, so long
/// layer or GPU names never run into the next column.
class TextTable final
{
public:
    enum class Align { Left, Right };
    struct Column final
    {
        std::string header;
        Align align = Align::Left;
    };

    explicit TextTable(std::vector<Column> columns);
    /// A row with one cell per column (missing cells are empty, extra ones are dropped).
    void addRow(std::vector<std::string> cells);
    void print(std::ostream& out) const;

private:
    std::vector<Column> m_columns;
    std::vector<std::vector<std::string>> m_rows;
};

} // namespace headroom::cli
