#include "TextTable.h"

#include <algorithm>

namespace headroom::cli {

namespace {

/// Characters as a terminal shows them: UTF-8 continuation bytes take no column.
std::size_t displayWidth(const std::string& text)
{
    return static_cast<std::size_t>(std::count_if(
        text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void printCell(std::ostream& out, const std::string& text, std::size_t width, TextTable::Align align)
{
    const std::string padding(width - std::min(width, displayWidth(text)), ' ');
    if (align == TextTable::Align::Right)
        out << padding << text;
    else
        out << text << padding;
}

} // namespace

TextTable::TextTable(std::vector<Column> columns)
    : m_columns { std::move(columns) }
{
}

void TextTable::addRow(std::vector<std::string> cells)
{
    cells.resize(m_columns.size());
    m_rows.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const
{
    std::vector<std::size_t> widths;
    for (std::size_t c = 0; c < m_columns.size(); ++c) {
        std::size_t width = displayWidth(m_columns[c].header);
        for (const auto& row : m_rows)
            width = std::max(width, displayWidth(row[c]));
        widths.push_back(width);
    }
    const auto printLine = [&](auto cellAt) {
        for (std::size_t c = 0; c < m_columns.size(); ++c) {
            const bool last = c + 1 == m_columns.size();
            if (c > 0)
                out << "  ";
            // No trailing blanks after a left-aligned last column.
            printCell(out, cellAt(c), last && m_columns[c].align == Align::Left ? 0 : widths[c],
                m_columns[c].align);
        }
        out << '\n';
    };
    printLine([&](std::size_t c) -> const std::string& { return m_columns[c].header; });
    for (const auto& row : m_rows)
        printLine([&](std::size_t c) -> const std::string& { return row[c]; });
}

} // namespace headroom::cli
