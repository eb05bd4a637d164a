#pragma once

#include "Document.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/model/EmptyNetwork.h"

#include <QAbstractItemModel>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom::ui {

/// The network's spec tree as a tree model (Repeat blocks are expandable parents), decorated with
/// the core's analysis: output shape, parameters, activation memory per sample, inputs, and each
/// invalid layer's reason. Follows the Document's change signals row by row; renaming (setData)
/// and drag-and-drop moves become undo commands on the Document.
class LayerTableModel final : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column {
        IndexColumn,
        NameColumn,
        TypeColumn,
        OutputColumn,
        ParametersColumn,
        ActivationColumn,
        FlopsColumn, ///< forward + backward FLOPs per sample
        TrainingColumn, ///< frozen, checkpointed, LoRA adapters
        InputsColumn,
        ColumnCount
    };
    enum Role {
        ErrorRole = Qt::UserRole, ///< the layer's error, without the part naming the layer (empty when valid)
        SpecPathRole, ///< "layers[4].layers[1]"
        IsRepeatRole,
        ParametersRole, ///< qulonglong parameter elements (a Repeat block: all repetitions)
        ActivationBytesRole, ///< qulonglong activation bytes per sample (a Repeat block: all repetitions)
        FrozenRole, ///< bool: none of its parameters train (a block: none inside)
        CheckpointedRole, ///< bool: recomputed in backward (a block: any layer inside)
        LoraParamsRole, ///< qulonglong LoRA adapter elements added (a Repeat block: all repetitions)
        /// The layer's number as every view shows it (layerNumber(): "3", "5.2" inside a block), from
        /// its position now: the index column's delegate paints it.
        NumberRole,
    };

    explicit LayerTableModel(Document* document, QObject* parent = nullptr);
    ~LayerTableModel() override;

    [[nodiscard]] QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    [[nodiscard]] QModelIndex parent(const QModelIndex& child) const override;
    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    [[nodiscard]] Qt::DropActions supportedDropActions() const override;
    [[nodiscard]] QStringList mimeTypes() const override;
    [[nodiscard]] QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
        const QModelIndex& parent) override;

    [[nodiscard]] LayerPath pathOf(const QModelIndex& index) const;
    [[nodiscard]] QModelIndex indexOf(const LayerPath& path, int column = 0) const;
    /// The analysis row describing the layer at `index` (its first repetition), or null.
    [[nodiscard]] const LayerRow* analysisRow(const QModelIndex& index) const;
    /// The error of the layer at `index` (nullopt when valid), as the core gave it.
    [[nodiscard]] std::optional<Error> errorOf(const QModelIndex& index) const;
    /// One line about the whole network: its size, or the first error ("Layer 4 (conv): ...", "Layer 5
    /// (MaxPool2d): ..." for a layer without a name).
    [[nodiscard]] QString statusText() const { return m_status; }
    /// A blocking error in the network (an empty network is not one: it says so in the status).
    [[nodiscard]] bool hasError() const noexcept { return m_analysis.error.has_value() && !emptyNetwork(); }
    [[nodiscard]] bool emptyNetwork() const noexcept
    {
        return m_analysis.error && m_analysis.error->message == kEmptyNetworkMessage;
    }
    /// Where the first error is: a layer's path, or empty when it is not about one layer.
    [[nodiscard]] LayerPath errorPath() const { return m_errorPath; }
    /// How messages name the layer at a spec path beside its number: its name, or its type when its name
    /// is automatic ("MaxPool2d", not "4" in row 5: layerReference()); empty when there is no such row.
    [[nodiscard]] QString nameAt(const std::string& specPath) const;

public Q_SLOTS:
    void setAnalysis(const headroom::Analysis& analysis);

Q_SIGNALS:
    void statusTextChanged(const QString& text);

private:
    struct Node
    {
        Node* parent = nullptr;
        int row = 0;
        std::vector<std::unique_ptr<Node>> children;
    };
    struct RowInfo
    {
        int analysisRow = -1;
        std::uint64_t params = 0;
        std::uint64_t activationBytes = 0;
        std::uint64_t forwardFlops = 0; ///< per sample
        std::uint64_t backwardFlops = 0; ///< per sample
        std::uint64_t loraParams = 0;
        std::uint64_t trainedParams = 0; ///< trainable parameters, adapters excluded
        bool checkpointed = false;
        std::optional<Error> error;
        bool blocked = false;
    };

    /// What data() reads about one index, worked out once per call.
    struct Cell
    {
        LayerPath path;
        const LayerSpec* spec = nullptr;
        const RowInfo* info = nullptr;
        const LayerRow* row = nullptr;
        bool invalid = false;
        bool blocked = false; ///< invalid because an earlier layer is
        bool frozen = false;
        bool checkpointed = false;
        std::uint64_t lora = 0; ///< LoRA adapter parameters
    };

    [[nodiscard]] std::optional<Cell> cellOf(const QModelIndex& index) const;
    [[nodiscard]] QVariant displayData(const Cell& cell, int column) const;
    [[nodiscard]] QVariant toolTipData(const Cell& cell, const QModelIndex& index) const;
    /// Decoration, foreground, font and alignment.
    [[nodiscard]] static QVariant styleData(const Cell& cell, int column, int role);
    /// The Role values.
    [[nodiscard]] static QVariant customRoleData(const Cell& cell, int role);
    /// m_info from m_analysis's rows: each spec's first repetition, blocks summed.
    void collectRowInfo();
    static void addToBlock(RowInfo& block, const LayerRow& row, std::uint64_t trained);
    /// m_errorPath and the error of the layer a structural error names.
    void noteStructuralError();
    [[nodiscard]] QString statusOfAnalysis() const;
    void build(Node* node, const std::vector<LayerSpec>& specs);
    static void renumber(Node* node);
    Node* nodeAt(const LayerPath& path);
    const Node* nodeOf(const QModelIndex& index) const;
    const RowInfo* infoOf(const QModelIndex& index) const;
    void emitAllDataChanged(const QModelIndex& parent);

    Document* m_document;
    Node m_root;
    Analysis m_analysis;
    std::unordered_map<std::string, RowInfo> m_info; // by spec path
    QString m_status;
    LayerPath m_errorPath;
};

} // namespace headroom::ui
