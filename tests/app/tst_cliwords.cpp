// Issue 25 item 12: the command line says what the GUI and the report say. Layers numbered from 1
// (the loss unnumbered), the planner's first row "As set up", the columns named for what they
// answer (item 13), plurals that agree with their count.
#include "../core/NumberedLayersFile.h"
#include "RunHeadroom.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kVgg = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
const QString kLeNet = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/lenet5.json");

/// The lines of `text` from the one starting with `header` to the next empty line.
QStringList table(const QString& text, const QString& header)
{
    const QStringList lines = text.split(QLatin1Char('\n'));
    QStringList out;
    bool in = false;
    for (const QString& line : lines) {
        if (line.startsWith(header))
            in = true;
        else if (in && line.trimmed().isEmpty())
            break;
        if (in)
            out << line;
    }
    return out;
}

} // namespace

class TestCliWords : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void layersAreNumberedFromOne();
    void layersAreNumberedAsTheGuiTreeNumbersThem();
    void planSaysAsSetUpAndNamesItsBatch();
    void compareNamesTheBatchAndTheTarget();
    void anEmptyNetworkSaysSo_data();
    void anEmptyNetworkSaysSo();
};

void TestCliWords::layersAreNumberedFromOne()
{
    // LeNet-5 has 12 layers (conv1 ... fc3, resources/presets/lenet5.json) and a cross-entropy loss.
    const Run r = runHeadroom({ QStringLiteral("estimate"), kLeNet });
    QCOMPARE(r.exitCode, 0);
    const QStringList rows = table(r.out, QStringLiteral("#   Layer"));
    QCOMPARE(rows.size(), 1 + 12 + 1);
    QVERIFY2(rows[1].startsWith(QStringLiteral("1   conv1 ")), qPrintable(rows[1]));
    QVERIFY2(rows[12].startsWith(QStringLiteral("12  fc3 ")), qPrintable(rows[12]));
    QVERIFY2(
        rows[13].startsWith(QStringLiteral("    loss ")), qPrintable(rows[13])); // not a layer: no number
}

void TestCliWords::layersAreNumberedAsTheGuiTreeNumbersThem()
{
    // Issue 35, item 4: the table's # column is the GUI tree's number (tests/core/NumberedLayersFile.h
    // works each out): a Repeat block's layers carry its number 3 and their place in it, and the layers
    // after the block go on from 4, not from the lines printed above them.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString& name, bool invalid) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(QByteArray::fromStdString(headroom::test::numberedLayersFile(invalid)));
        return f.fileName();
    };
    const Run r = runHeadroom({ QStringLiteral("estimate"), write(QStringLiteral("valid.json"), false) });
    QCOMPARE(r.exitCode, 0);
    const QStringList rows = table(r.out, QStringLiteral("# ")); // the layer table: "#", padded, "Layer"
    QCOMPARE(
        rows.size(), 1 + 6 + 1); // the header, 6 lines of layers (the block's two iterations alike), the loss
    const QStringList expected { QStringLiteral(R"(^1\s+stem\s+Linear )"),
        QStringLiteral(R"(^2\s+1\s+ReLU )"), // the automatic name "1" beside its number 2
        QStringLiteral(R"(^3\.1\s+blk\.0–1\.inner × 2\s+Linear )"),
        QStringLiteral(R"(^3\.2\s+blk\.0–1\.1 × 2\s+ReLU )"), QStringLiteral(R"(^4\s+fc\s+Linear )"),
        QStringLiteral(R"(^5\s+head\s+Linear )"), QStringLiteral(R"(^\s+loss\s)") };
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(QRegularExpression(expected[i]).match(rows[i + 1]).hasMatch(),
            qPrintable(expected[i] + QStringLiteral(" against ") + rows[i + 1]));

    // --json gives each entry its number too (the loss none).
    const Run json = runHeadroom(
        { QStringLiteral("estimate"), dir.filePath(QStringLiteral("valid.json")), QStringLiteral("--json") });
    QCOMPARE(json.exitCode, 0);
    QStringList numbers;
    for (const auto& entry :
        QJsonDocument::fromJson(json.out.toUtf8()).object()[QStringLiteral("layers")].toArray())
        numbers << entry.toObject()[QStringLiteral("number")].toString(QStringLiteral("none"));
    QCOMPARE(numbers,
        QStringList({ QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3.1"), QStringLiteral("3.2"),
            QStringLiteral("4"), QStringLiteral("5"), QStringLiteral("none") }));

    // The invalid "fc" is layer 4 in the error too, with its name and its JSON path.
    const Run bad = runHeadroom({ QStringLiteral("estimate"), write(QStringLiteral("invalid.json"), true) });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QStringLiteral("layer 4 (fc, layers[3]): ")
                 + QLatin1String(headroom::test::kInvalidFcReason)),
        qPrintable(bad.err));
}

void TestCliWords::planSaysAsSetUpAndNamesItsBatch()
{
    // VGG-16 on a GTX 1080 with no target: one set-up, the plan itself at its max batch (the issue's
    // "batch 79 while the set-up is batch 32"; 71 since the max batch comes from the caching
    // allocator's reserved peak, 79 by the tensors alone: docs/user-guide.md).
    const Run r
        = runHeadroom({ QStringLiteral("plan"), kVgg, QStringLiteral("--gpu"), QStringLiteral("GTX 1080") });
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QStringLiteral("Searched         1 set-up over 1 analysis\n")),
        qPrintable(r.out)); // was "1 set-ups"
    const QStringList rows = table(r.out, QStringLiteral("#  What changes"));
    QCOMPARE(rows.size(), 2);
    QVERIFY2(rows[0].contains(QStringLiteral("Planned batch")), qPrintable(rows[0]));
    QVERIFY2(QRegularExpression(QStringLiteral("^1  As set up\\s+same\\s+71\\s")).match(rows[1]).hasMatch(),
        qPrintable(rows[1]));
    QVERIFY2(r.out.contains(QStringLiteral("Planned batch: the micro-batch")), qPrintable(r.out));
    // With a target of 256, two set-ups are searched.
    const Run target = runHeadroom({ QStringLiteral("plan"), kVgg, QStringLiteral("--gpu"),
        QStringLiteral("GTX 1080"), QStringLiteral("--target-batch"), QStringLiteral("256") });
    QVERIFY2(target.out.contains(QStringLiteral("Searched         2 set-ups over 1 analysis\n")),
        qPrintable(target.out));
}

void TestCliWords::compareNamesTheBatchAndTheTarget()
{
    // The issue's case: at target 512 the GTX 1070 fits the set-up's batch 32 but its max batch, 71 from
    // the reserved peak (79 by the tensors alone), does not reach 512. The peak column is what the GPU
    // holds (issue 34), as `estimate` judges the fit: the caching allocator's reserved peak at batch 32,
    // 5,903,482,880 B (`estimate --batch 32 --json`'s reserved.peak_bytes: 2,815 x 2 MiB, above the
    // 4,633,115,648 B allocated peak by the segments' rounding and the freed blocks it keeps cached, such
    // as the convolutions' cuDNN workspaces of up to 784 MiB), plus Pascal's 512 MiB context:
    // 6,440,353,792 B = 5.998 GiB, "6.00 GiB" (the tensors alone: 4.73 GiB).
    const Run r = runHeadroom({ QStringLiteral("compare"), kVgg, QStringLiteral("--gpus-list"),
        QStringLiteral("GTX 1070"), QStringLiteral("--target-batch"), QStringLiteral("512") });
    QCOMPARE(r.exitCode, 0);
    const QStringList rows = table(r.out, QStringLiteral("GPU "));
    QCOMPARE(rows.size(), 2);
    QVERIFY2(QRegularExpression(
                 QStringLiteral("Peak \\(batch 32\\)\\s+Fits batch 32\\s+Max batch\\s+Reaches target"))
                 .match(rows[0])
                 .hasMatch(),
        qPrintable(rows[0]));
    QVERIFY2(QRegularExpression(QStringLiteral("GTX 1070\\s+8.00 GiB\\s+6.00 GiB\\s+yes\\s+71\\s+no\\s"))
                 .match(rows[1])
                 .hasMatch(),
        qPrintable(rows[1]));
}

void TestCliWords::anEmptyNetworkSaysSo_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("estimate") << QStringList { QStringLiteral("estimate") };
    QTest::newRow("estimate --json") << QStringList { QStringLiteral("estimate"), QStringLiteral("--json") };
    QTest::newRow("max-batch") << QStringList { QStringLiteral("max-batch") };
    QTest::newRow("plan") << QStringList { QStringLiteral("plan"), QStringLiteral("--target-batch"),
        QStringLiteral("256") };
    QTest::newRow("compare") << QStringList { QStringLiteral("compare") };
    QTest::newRow("report") << QStringList { QStringLiteral("report"), QStringLiteral("-o"),
        QStringLiteral("@dir/r.pdf") };
}

// Issue 25 item 1: a model file with no layers (what the GUI saves after File > New) is no training
// step: every command says the network is empty, with no step time, rate or max batch of the input
// alone (the GUI showed "0.00 us · 1280 G samples/s").
void TestCliWords::anEmptyNetworkSaysSo()
{
    QFETCH(QStringList, args);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString model = dir.filePath(QStringLiteral("empty.json"));
    QFile file(model);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        R"({"format": "headroom-model", "version": 1, "name": "Untitled", "input": {"shape": [3, 224, 224]}, "layers": []})");
    file.close();
    for (QString& a : args)
        a.replace(QStringLiteral("@dir"), dir.path());
    args.insert(1, model);
    const Run r = runHeadroom(args);
    QVERIFY2(r.err.contains(
                 QStringLiteral("the network is empty: add layers to see how much memory training it takes")),
        qPrintable(r.err));
    if (args.front() == QLatin1String("report")) {
        // Issue 35: as the GUI's Export, the report is written and says so on its first page; exit 1.
        QCOMPARE(r.exitCode, 1);
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("r.pdf"))));
        return;
    }
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
}

QTEST_GUILESS_MAIN(TestCliWords)
#include "tst_cliwords.moc"
