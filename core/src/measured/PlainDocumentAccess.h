#pragma once

// The readers of src/measured/ build a PlainDocument in place: its arrays, without a copy per value.
#include "headroom/measured/PlainData.h"

namespace headroom {

class PlainDocumentAccess final
{
public:
    static std::vector<PlainDocument::Node>& nodes(PlainDocument& d) noexcept { return d.m_nodes; }
    static std::vector<std::uint32_t>& children(PlainDocument& d) noexcept { return d.m_children; }
    static std::string& text(PlainDocument& d) noexcept { return d.m_text; }
};

} // namespace headroom
