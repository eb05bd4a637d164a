#pragma once

#include "headroom/support/Error.h"

#include <QCoreApplication>
#include <QString>
#include <functional>
#include <string>
#include <string_view>

namespace headroom::ui {

/// The core's error messages as the GUI shows them. The core names places by JSON path, counted
/// from 0 ("layers[3].layers[0].kernel_size"); the layer table numbers rows from 1 ("4.1"), so every
/// path becomes the table's numbering ("kernel_size of layer 4.1"), a message about one layer leads
/// with that layer ("Layer 4.1 (conv2): ..."), and bytes that are not printable text (a binary file
/// quoted by the JSON parser) are shown as \xNN escapes.
class ErrorText final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::ui::ErrorText)

public:
    /// The display name of the layer at a spec path ("layers[3]"), or empty: lets a message name the
    /// layer as the table does.
    using NameLookup = std::function<QString(const std::string& specPath)>;

    /// "layers[3].layers[0]" -> "4.1"; empty if `specPath` is not a layer path.
    [[nodiscard]] static QString position(std::string_view specPath);
    /// A whole message, for a dialog or a status line: paths in the table's numbering, and a
    /// message about a layer led by "Layer 4 (name): ".
    [[nodiscard]] static QString forUser(const Error& error, const NameLookup& names = {});
    /// A message about one layer without the part that says which layer (shown next to it):
    /// "layers[3] (Conv2d \"conv\"): kernel 5x5 does not fit" -> "kernel 5x5 does not fit".
    [[nodiscard]] static QString withoutLayer(const Error& error);
    /// The layer spec path an error is about ("layers[3].layers[0]"), or empty.
    [[nodiscard]] static std::string layerPathOf(const Error& error);
    /// UTF-8 text with undecodable bytes and control characters (other than line breaks and tabs)
    /// as \xNN escapes.
    [[nodiscard]] static QString printable(std::string_view text);
};

} // namespace headroom::ui
