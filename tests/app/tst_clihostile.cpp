// The command line against hostile input (issue 26): a report never replaces the model it is made from,
// names from files cannot drive the terminal, a flood of warnings is summarised, a symbolic-link loop
// is called what it is. The real `headroom` binary, run as a process.
#include "../core/NestedRepeatFile.h"
#include "RunHeadroom.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace {

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A network of one Linear layer, named by `name`, as a model file.
QByteArray model(const std::string& name)
{
    nlohmann::json m = { { "format", "headroom-model" }, { "version", 1 }, { "name", name },
        { "input", { { "shape", { 8 } } } },
        { "layers", { { { "type", "Linear" }, { "name", "fc" }, { "out_features", 4 } } } } };
    return QByteArray::fromStdString(m.dump());
}

/// Whether `bytes` holds a control character a terminal would act on: C0 other than newline and tab,
/// DEL, or a C1 control (U+0080 to U+009F, bytes C2 80 to C2 9F in UTF-8).
bool hasControlCharacters(const QByteArray& bytes)
{
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
            return true;
        if (c == 0xC2 && i + 1 < bytes.size() && static_cast<unsigned char>(bytes[i + 1]) >= 0x80
            && static_cast<unsigned char>(bytes[i + 1]) <= 0x9F)
            return true;
    }
    return false;
}

} // namespace

class TestCliHostile : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void reportNeverReplacesItsModel_data();
    void reportNeverReplacesItsModel();
    void controlCharactersAreEscaped();
    void warningsAreSummarised();
    void symbolicLinkLoopsAreNamed();
    void nestedRepeatsAreBounded();

private:
    QTemporaryDir m_dir;
};

void TestCliHostile::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestCliHostile::reportNeverReplacesItsModel_data()
{
    // `report model.json -o model.json` replaced the model with the PDF and exited 0. The output is
    // compared with the model as a file (device and inode), so every way of naming it is caught.
    QTest::addColumn<QString>("how");
    QTest::addColumn<QString>("shown");
    QTest::newRow("the same path") << QStringLiteral("same")
                                   << QStringLiteral("model.json: is the file it is made from");
    QTest::newRow("another spelling") << QStringLiteral("dot") << QStringLiteral("(the same file as ");
    QTest::newRow("a symbolic link") << QStringLiteral("symlink") << QStringLiteral("(the same file as ");
    QTest::newRow("a hard link") << QStringLiteral("hardlink") << QStringLiteral("(the same file as ");
}

void TestCliHostile::reportNeverReplacesItsModel()
{
    QFETCH(QString, how);
    QFETCH(QString, shown);
    const QString folder = m_dir.filePath(how);
    QVERIFY(QDir().mkpath(folder));
    const QString modelPath = folder + QStringLiteral("/model.json");
    writeFile(modelPath, model("LeNet"));
    const QByteArray before = readFile(modelPath);
    QString output = modelPath;
    if (how == QLatin1String("dot"))
        output = folder + QStringLiteral("/./model.json");
    else if (how == QLatin1String("symlink"))
        QVERIFY(QFile::link(modelPath, output = folder + QStringLiteral("/link.pdf")));
    else if (how == QLatin1String("hardlink"))
        QVERIFY(::link(QFile::encodeName(modelPath).constData(),
                    QFile::encodeName(output = folder + QStringLiteral("/hard.pdf")).constData())
            == 0);
    const RunBytes r
        = runHeadroomBytes({ QStringLiteral("report"), modelPath, QStringLiteral("-o"), output });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("headroom: error: cannot write the report to "), r.err.constData());
    QVERIFY2(r.err.contains(shown.toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains("writing there would replace it: choose another name"), r.err.constData());
    QCOMPARE(readFile(modelPath), before); // the model is untouched
    // Any other name is fine.
    const RunBytes ok = runHeadroomBytes({ QStringLiteral("report"), modelPath, QStringLiteral("-o"),
        folder + QStringLiteral("/report.pdf") });
    QCOMPARE(ok.exitCode, 0);
}

void TestCliHostile::controlCharactersAreEscaped()
{
    // A model named with ESC [31m (red), BEL, a C1 CSI (U+009B) and DEL: printed escaped in the table
    // (C0 as \x1b, the others as \u009b), and --json still parses back to the very name.
    const std::string name = "evil\x1b[31mred\x07\xc2\x9b"
                             "2J\x7f";
    const QString path = m_dir.filePath(QStringLiteral("control.json"));
    writeFile(path, model(name));
    const RunBytes table = runHeadroomBytes({ QStringLiteral("estimate"), path });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(!hasControlCharacters(table.out), table.out.constData());
    QVERIFY2(table.out.contains("evil\\x1b[31mred\\x07\\u009b2J\\u007f"), table.out.constData());
    const RunBytes json = runHeadroomBytes({ QStringLiteral("estimate"), path, QStringLiteral("--json") });
    QCOMPARE(json.exitCode, 0);
    QVERIFY(!hasControlCharacters(json.out));
    QCOMPARE(nlohmann::json::parse(json.out.toStdString())["model"].get<std::string>(), name);
}

void TestCliHostile::warningsAreSummarised()
{
    // 30 GenericOp layers, each with its assumption warning: 20 lines, then one that counts the other 10
    // (before issue 26 a file could print thousands of warning lines ahead of its result).
    nlohmann::json layers = nlohmann::json::array();
    for (int i = 0; i < 30; ++i)
        layers.push_back({ { "type", "GenericOp" }, { "name", "op" + std::to_string(i) },
            { "op", "Custom" + std::to_string(i) }, { "output_shape", { 8 } } });
    const nlohmann::json m = { { "format", "headroom-model" }, { "version", 1 },
        { "input", { { "shape", { 8 } } } }, { "layers", layers } };
    const QString path = m_dir.filePath(QStringLiteral("warnings.json"));
    writeFile(path, QByteArray::fromStdString(m.dump()));
    const RunBytes r = runHeadroomBytes({ QStringLiteral("estimate"), path });
    QCOMPARE(r.exitCode, 0);
    const QList<QByteArray> lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 21);
    QVERIFY2(lines.first().startsWith("headroom: warning: layer 'op0': "), lines.first().constData());
    QCOMPARE(lines.last(), QByteArray("headroom: warning: and 10 more warnings (--json lists every one)"));
    const RunBytes json = runHeadroomBytes({ QStringLiteral("estimate"), path, QStringLiteral("--json") });
    QCOMPARE(nlohmann::json::parse(json.out.toStdString())["warnings"].size(), std::size_t { 30 });
}

void TestCliHostile::symbolicLinkLoopsAreNamed()
{
    // a.json -> b.json -> a.json was "no such file"; so was a link to nothing.
    const QString a = m_dir.filePath(QStringLiteral("a.json"));
    const QString b = m_dir.filePath(QStringLiteral("b.json"));
    QVERIFY(QFile::link(b, a));
    QVERIFY(QFile::link(a, b));
    const RunBytes loop = runHeadroomBytes({ QStringLiteral("estimate"), a });
    QCOMPARE(loop.exitCode, 2);
    QCOMPARE(loop.err,
        QByteArray("headroom: error: " + QFile::encodeName(a)
            + ": is a loop of symbolic links (following them never reaches a file)\n"));
    const QString onnx = m_dir.filePath(QStringLiteral("loop.onnx"));
    QVERIFY(QFile::link(onnx, onnx));
    QVERIFY(
        runHeadroomBytes({ QStringLiteral("estimate"), onnx }).err.contains(": is a loop of symbolic links"));
    const QString dangling = m_dir.filePath(QStringLiteral("dangling.json"));
    QVERIFY(QFile::link(m_dir.filePath(QStringLiteral("nowhere.json")), dangling));
    QVERIFY2(
        runHeadroomBytes({ QStringLiteral("estimate"), dangling }).err.contains(": is a symbolic link to "),
        "a dangling link");
}

void TestCliHostile::nestedRepeatsAreBounded()
{
    // Issue 26: 15 nested Repeat blocks of 2 (1 KB) took 2.3 s to estimate and 46 s to plan. Refused in
    // both, in one line naming the innermost block (the 15th layers[0]) where the bound is passed.
    const QString deep = m_dir.filePath(QStringLiteral("nested15.json"));
    writeFile(deep, QByteArray::fromStdString(headroom::test::nestedRepeatFile(15, 2)));
    const QString block = QStringLiteral("layers[0]") + QStringLiteral(".layers[0]").repeated(14);
    for (const QStringList& args : { QStringList { QStringLiteral("estimate"), deep },
             QStringList { QStringLiteral("plan"), deep, QStringLiteral("--allow"),
                 QStringLiteral("precision,lora,8bit-optimizer") } }) {
        const RunBytes r = runHeadroomBytes(args);
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err.trimmed());
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY2(err.contains(block
                     + QStringLiteral(" (iteration 1): the nested Repeat blocks need more than "
                                      "8,192 layers analysed one by one")),
            qPrintable(err));
        QVERIFY2(err.endsWith(QStringLiteral("nest fewer blocks")), qPrintable(err));
    }
    // 12 levels analyse 8,192 layers (the bound): the plan searches 5 of the 27 choices a GTX 1080
    // allows (65,536 rows / 12,287 an analysis, tst_planner) and says so, in the table and in --json.
    const QString twelve = m_dir.filePath(QStringLiteral("nested12.json"));
    writeFile(twelve, QByteArray::fromStdString(headroom::test::nestedRepeatFile(12, 2)));
    const QStringList plan { QStringLiteral("plan"), twelve, QStringLiteral("--allow"),
        QStringLiteral("precision,lora,8bit-optimizer") };
    const RunBytes table = runHeadroomBytes(plan);
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains("Left out         only 5 of 27 precision, LoRA and checkpointing choices"),
        table.out.constData());
    const RunBytes json = runHeadroomBytes(plan + QStringList { QStringLiteral("--json") });
    QCOMPARE(json.exitCode, 0);
    QCOMPARE(nlohmann::json::parse(json.out.toStdString())["left_out"].size(), std::size_t { 2 });
}

QTEST_GUILESS_MAIN(TestCliHostile)
#include "tst_clihostile.moc"
