// Structural edits of a network (NetworkEdits.h) without a GUI: each worked out as a splice or a move,
// applied, and taken back by its inverse. Expected layouts are written out by hand; the residual
// block's refusal quotes shapes computed by hand for the network below.
#include "NetworkBuilder.h"
#include "headroom/editing/NetworkEdits.h"

#include <QTest>
#include <variant>

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::SpecPath)

namespace {

/// Input [3, 8, 8]: Conv2d(4, 3x3, padding 1) keeps 8 x 8, so Flatten gives 4 x 8 x 8 = 256 features and
/// Linear(10) ends it; then a block holding one Identity. Parameters: conv 3 x 4 x 9 + 4 = 112, fc
/// 256 x 10 + 10 = 2,570: 2,682.
Network tiny()
{
    return network({ 3, 8, 8 },
        { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv"),
            layer("ReLU"), layer("Flatten"), layer("Linear", { { "out_features", 10 } }, "fc"),
            repeat("block", 2, { layer("Identity") }) });
}

/// The top-level types, a block as "[...]" with its children's types.
std::string describe(const Network& n)
{
    std::string out;
    for (const auto& s : n.layers) {
        std::string part = s.type;
        if (s.isRepeat()) {
            part = "[";
            for (const auto& c : s.children)
                part += (part.size() > 1 ? " " : "") + c.type;
            part += "]";
        }
        out += (out.empty() ? "" : " ") + part;
    }
    return out;
}

} // namespace

class TestNetworkEdits : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void paths();
    void moves_data();
    void moves();
    void refusedMoves();
    void splices();
    void duplicateNames();
    void residualWrap();
    void residualRefusals_data();
    void residualRefusals();
    void checkpointWrap();
    void checkpointRepointsLaterUses();
    void checkpointRefusals();
    void markedBlocksNeedPerBlock();
};

void TestNetworkEdits::paths()
{
    const Network n = tiny();
    QCOMPARE(specPathText({ 3 }), std::string("layers[3]"));
    QCOMPARE(specPathText({ 4, 0 }), std::string("layers[4].layers[0]"));
    // What the analysis names the block's Identity.
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY(std::any_of(a.rows.begin(), a.rows.end(),
        [](const LayerRow& r) { return r.type == "Identity" && r.specPath == "layers[4].layers[0]"; }));
    QCOMPARE(childrenAt(n, {})->size(), std::size_t { 5 });
    QCOMPARE(childrenAt(n, { 4 })->size(), std::size_t { 1 });
    QVERIFY(childrenAt(n, { 0 }) == nullptr); // a Conv2d has no children
    QVERIFY(childrenAt(n, { 9 }) == nullptr);
    QCOMPARE(specAt(n, { 4, 0 })->type, std::string("Identity"));
    QVERIFY(specAt(n, {}) == nullptr);
    QVERIFY(specAt(n, { 4, 1 }) == nullptr);
    QVERIFY(specAt(n, { 0, 0 }) == nullptr);
}

void TestNetworkEdits::moves_data()
{
    QTest::addColumn<SpecPath>("parent");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("count");
    QTest::addColumn<SpecPath>("newParent");
    QTest::addColumn<int>("newRow"); // counted before the move
    QTest::addColumn<QString>("expected");
    QTest::newRow("down one") << SpecPath {} << 0 << 1 << SpecPath {} << 2
                              << "ReLU Conv2d Flatten Linear [Identity]";
    QTest::newRow("up two") << SpecPath {} << 3 << 1 << SpecPath {} << 1
                            << "Conv2d Linear ReLU Flatten [Identity]";
    QTest::newRow("two to end") << SpecPath {} << 0 << 2 << SpecPath {} << 5
                                << "Flatten Linear [Identity] Conv2d ReLU";
    QTest::newRow("past the end") << SpecPath {} << 0 << 1 << SpecPath {} << 99
                                  << "ReLU Flatten Linear [Identity] Conv2d";
    QTest::newRow("into block") << SpecPath {} << 1 << 1 << SpecPath { 4 } << 1
                                << "Conv2d Flatten Linear [Identity ReLU]";
    QTest::newRow("out of block") << SpecPath { 4 } << 0 << 1 << SpecPath {} << 0
                                  << "Identity Conv2d ReLU Flatten Linear []";
}

void TestNetworkEdits::moves()
{
    QFETCH(SpecPath, parent);
    QFETCH(int, row);
    QFETCH(int, count);
    QFETCH(SpecPath, newParent);
    QFETCH(int, newRow);
    QFETCH(QString, expected);
    const Network before = tiny();
    const auto move = moveEdit(before, parent, row, count, newParent, newRow);
    QVERIFY(move);
    Network n = before;
    apply(n, *move);
    QCOMPARE(QString::fromStdString(describe(n)), expected);
    apply(n, inverse(*move));
    QVERIFY2(n == before, describe(n).c_str());
}

void TestNetworkEdits::refusedMoves()
{
    const Network n = tiny();
    QVERIFY(!moveEdit(n, {}, 4, 1, { 4 }, 0)); // a block into itself
    QVERIFY(!moveEdit(n, {}, 1, 1, {}, 1)); // lands where it is
    QVERIFY(!moveEdit(n, {}, 1, 1, {}, 2)); // just after itself: where it is too
    QVERIFY(!moveEdit(n, {}, 4, 2, {}, 0)); // the range ends past the list
    QVERIFY(!moveEdit(n, {}, 0, 1, { 0 }, 0)); // into a layer that is not a block
    QVERIFY(!moveEdit(n, {}, -1, 1, {}, 3));
}

void TestNetworkEdits::splices()
{
    const Network before = tiny();
    // Inserting past the end appends; removing takes out exactly the range; each inverse restores.
    const auto insert = insertEdit(before, { 4 }, 7, { layer("ReLU"), layer("Dropout") });
    QVERIFY(insert);
    QCOMPARE(insert->row, 1);
    Network n = before;
    apply(n, *insert);
    QCOMPARE(describe(n), std::string("Conv2d ReLU Flatten Linear [Identity ReLU Dropout]"));
    apply(n, inverse(*insert));
    QVERIFY(n == before);
    const auto remove = removeEdit(before, {}, 1, 2);
    QVERIFY(remove);
    QCOMPARE(remove->removed.size(), std::size_t { 2 });
    apply(n, *remove);
    QCOMPARE(describe(n), std::string("Conv2d Linear [Identity]"));
    apply(n, inverse(*remove));
    QVERIFY(n == before);
    QVERIFY(!removeEdit(before, {}, 3, 3));
    QVERIFY(!removeEdit(before, {}, 0, 0));
    QVERIFY(!insertEdit(before, {}, 0, {}));
    QVERIFY(!insertEdit(before, { 2 }, 0, { layer("ReLU") })); // Flatten holds no layers
}

void TestNetworkEdits::duplicateNames()
{
    // A named copy is "<name>_copy", then "<name>_copy_2" once that is taken; an unnamed one stays unnamed.
    Network n = tiny();
    const auto first = duplicateEdit(n, {}, 0, 2);
    QVERIFY(first);
    QCOMPARE(first->row, 2);
    apply(n, *first);
    QCOMPARE(describe(n), std::string("Conv2d ReLU Conv2d ReLU Flatten Linear [Identity]"));
    QCOMPARE(n.layers[2].name, std::string("conv_copy"));
    QCOMPARE(n.layers[3].name, std::string());
    const auto second = duplicateEdit(n, {}, 0, 1);
    apply(n, *second);
    QCOMPARE(n.layers[1].name, std::string("conv_copy_2"));
    QCOMPARE(uniqueName(n.layers, "fc"), std::string("fc_2"));
    QCOMPARE(uniqueName(n.layers, "head"), std::string("head"));
}

void TestNetworkEdits::residualWrap()
{
    // ReLU keeps its input's shape: x + relu(x) is valid, in a block of one iteration.
    const Network before = tiny();
    const auto edit = residualEdit(before, AnalysisOptions {}, {}, 1, 1);
    QVERIFY(std::holds_alternative<Splice>(edit));
    Network n = before;
    apply(n, std::get<Splice>(edit));
    const LayerSpec& block = n.layers[1];
    QCOMPARE(block.name, std::string("residual"));
    QCOMPARE(block.times, std::int64_t { 1 });
    QCOMPARE(describe(n), std::string("Conv2d [ReLU Add] Flatten Linear [Identity]"));
    QCOMPARE(block.children[0].name, std::string("out")); // it had none: the Add needs one
    QCOMPARE(block.children[1].name, std::string("sum"));
    QCOMPARE(block.children[1].inputs, (std::vector<std::string> { "repeat_input", "out" }));
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 2682 }); // an Add has no parameters
    // A second block beside it gets a name of its own (the Identity block keeps fc's 10 features).
    const auto second = residualEdit(n, AnalysisOptions {}, {}, 4, 1);
    QVERIFY(std::holds_alternative<Splice>(second));
    QCOMPARE(std::get<Splice>(second).inserted.front().name, std::string("residual_2"));
    apply(n, inverse(std::get<Splice>(edit)));
    QVERIFY(n == before);
}

void TestNetworkEdits::residualRefusals_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("reason");
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    // The conv turns 3 channels into 4 (8 x 8 kept); Linear turns Flatten's 256 features into 10.
    QTest::newRow("conv") << 0 << 1 << int(EditRefusal::Reason::ChangesShape) << "B x 3 x 8 x 8"
                          << "B x 4 x 8 x 8";
    QTest::newRow("fc") << 3 << 1 << int(EditRefusal::Reason::ChangesShape) << "B x 256"
                        << "B x 10";
    QTest::newRow("relu to fc") << 1 << 3 << int(EditRefusal::Reason::ChangesShape) << "B x 4 x 8 x 8"
                                << "B x 10";
    QTest::newRow("nothing") << 2 << 0 << int(EditRefusal::Reason::NoLayers) << ""
                             << "";
    QTest::newRow("past the end") << 4 << 2 << int(EditRefusal::Reason::NoLayers) << ""
                                  << "";
}

void TestNetworkEdits::residualRefusals()
{
    QFETCH(int, row);
    QFETCH(int, count);
    QFETCH(int, reason);
    QFETCH(QString, from);
    QFETCH(QString, to);
    const auto edit = residualEdit(tiny(), AnalysisOptions {}, {}, row, count);
    QVERIFY(std::holds_alternative<EditRefusal>(edit));
    const EditRefusal& refusal = std::get<EditRefusal>(edit);
    QCOMPARE(int(refusal.reason), reason);
    QCOMPARE(QString::fromStdString(refusal.first), from);
    QCOMPARE(QString::fromStdString(refusal.second), to);
}

void TestNetworkEdits::checkpointWrap()
{
    const Network before = tiny();
    const auto edit = checkpointEdit(before, {}, 0, 2);
    QVERIFY(std::holds_alternative<CheckpointEdit>(edit));
    const CheckpointEdit& c = std::get<CheckpointEdit>(edit);
    QVERIFY(c.wrap && !c.markBlock);
    Network n = before;
    apply(n, *c.wrap);
    QCOMPARE(describe(n), std::string("[Conv2d ReLU] Flatten Linear [Identity]"));
    QCOMPARE(n.layers[0].name, std::string("checkpoint"));
    QVERIFY(n.layers[0].checkpoint);
    QCOMPARE(n.layers[0].times, std::int64_t { 1 });
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 2682 });
    apply(n, inverse(*c.wrap));
    QVERIFY(n == before);
    // One selected block is marked rather than wrapped again.
    const auto mark = checkpointEdit(before, {}, 4, 1);
    QVERIFY(std::holds_alternative<CheckpointEdit>(mark));
    QCOMPARE(std::get<CheckpointEdit>(mark).markBlock, std::optional<SpecPath>(SpecPath { 4 }));
    QVERIFY(!std::get<CheckpointEdit>(mark).wrap);
}

void TestNetworkEdits::checkpointRepointsLaterUses()
{
    // "act" is the last wrapped layer: Flatten's use of it becomes a use of the block (the same
    // tensor). Inside a later block, a use before the block's own "act" is the outer one (repointed),
    // a use after it is the inner one (kept). The splice reaches the last layer it changed.
    Network before = tiny();
    before.layers[1].name = "act";
    before.layers[2].inputs = { "act" };
    before.layers[4].children = { layer("Identity", {}, "use1", { "act" }), layer("ReLU", {}, "act"),
        layer("Identity", {}, "use2", { "act" }) };
    const auto edit = checkpointEdit(before, {}, 0, 2);
    QVERIFY(std::holds_alternative<CheckpointEdit>(edit));
    const Splice& wrap = *std::get<CheckpointEdit>(edit).wrap;
    QCOMPARE(
        wrap.removed.size(), std::size_t { 5 }); // conv, act, Flatten, fc (unchanged, between), the block
    QCOMPARE(wrap.inserted.size(), std::size_t { 4 });
    Network n = before;
    apply(n, wrap);
    QCOMPARE(n.layers[1].inputs, (std::vector<std::string> { "checkpoint" }));
    QCOMPARE(n.layers[3].children[0].inputs, (std::vector<std::string> { "checkpoint" }));
    QCOMPARE(n.layers[3].children[2].inputs, (std::vector<std::string> { "act" }));
    apply(n, inverse(wrap));
    QVERIFY(n == before);
}

void TestNetworkEdits::checkpointRefusals()
{
    Network n = tiny();
    n.layers[2].inputs = { "conv" }; // Flatten reads the conv, which would be inside the block
    auto edit = checkpointEdit(n, {}, 0, 2);
    QVERIFY(std::holds_alternative<EditRefusal>(edit));
    QCOMPARE(
        std::get<EditRefusal>(edit), (EditRefusal { EditRefusal::Reason::UsedInside, "Flatten", "conv" }));
    edit = checkpointEdit(n, { 4 }, 0, 1);
    QCOMPARE(std::get<EditRefusal>(edit).reason, EditRefusal::Reason::NotTopLevel);
    edit = checkpointEdit(n, {}, 3, 5);
    QCOMPARE(std::get<EditRefusal>(edit).reason, EditRefusal::Reason::NoLayers);
}

void TestNetworkEdits::markedBlocksNeedPerBlock()
{
    // A "checkpoint" mark only matters under per-block checkpointing; selective keeps its own rule.
    QCOMPARE(checkpointingForMarkedBlocks(Checkpointing::None), Checkpointing::PerBlock);
    QCOMPARE(checkpointingForMarkedBlocks(Checkpointing::PerBlock), Checkpointing::PerBlock);
    QCOMPARE(checkpointingForMarkedBlocks(Checkpointing::Selective), Checkpointing::Selective);
}

QTEST_APPLESS_MAIN(TestNetworkEdits)
#include "tst_networkedits.moc"
