// The command line against hostile input (issue 26): a report never replaces the model it is made from,
// names from files cannot drive the terminal, a flood of warnings is summarised, a symbolic-link loop
// is called what it is. The real `headroom` binary, run as a process.
#include "../core/NestedRepeatFile.h"
#include "RunHeadroom.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
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
    void planRefusesOverflowingByteCounts();
    void planWorkIsBoundedByTheFile();
    void hfValuesAreCut_data();
    void hfValuesAreCut();
    void optionValuesAreCut();
    void failureIsTheErrorAlone();
    void singleRepeatLimitIsNamed();
    void reportTargetsCheckedBeforeDrawing();
    void onnxThroughAFifo();

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
    // It is the first entry of each block: numbered 1.1...1 (15 parts), as every view numbers layers.
    const QString block = QStringLiteral("layer 1") + QStringLiteral(".1").repeated(14) + QStringLiteral(" (")
        + QStringLiteral("layers[0]") + QStringLiteral(".layers[0]").repeated(14) + QStringLiteral(")");
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

namespace {

/// One Linear layer of 2^31 - 1 by 2^31 - 1 without bias: its weights fit 64 bits (1.8e19 bytes), its
/// weights with Adam's state do not. `generic`: a GenericOp first, whose assumption is a warning.
QByteArray overflowingModel(bool generic)
{
    nlohmann::json layers = nlohmann::json::array();
    if (generic)
        layers.push_back({ { "type", "GenericOp" }, { "name", "op" }, { "op", "Custom" },
            { "output_shape", { 2147483647 } } });
    layers.push_back(
        { { "type", "Linear" }, { "name", "fc" }, { "out_features", 2147483647 }, { "bias", false } });
    const nlohmann::json m = { { "format", "headroom-model" }, { "version", 1 }, { "name", "over" },
        { "input", { { "shape", { 2147483647 } } } }, { "layers", layers } };
    return QByteArray::fromStdString(m.dump());
}

/// The one line of an error: exit code 2, nothing on standard output, one line on standard error.
QString oneErrorLine(const RunBytes& r)
{
    if (r.exitCode != 2 || !r.out.isEmpty() || r.err.count('\n') != 1)
        return QStringLiteral("exit %1, out %2, err: %3")
            .arg(r.exitCode)
            .arg(QString::fromUtf8(r.out.left(200)), QString::fromUtf8(r.err.left(2000)));
    return QString::fromUtf8(r.err.trimmed());
}

} // namespace

void TestCliHostile::planRefusesOverflowingByteCounts()
{
    // Issue 38, item 8: plan said "Nothing fits" (exit 1) with no reason, where every other command
    // refuses the model.
    const QString path = m_dir.filePath(QStringLiteral("overflow.json"));
    writeFile(path, overflowingModel(false));
    for (const QString& command : { QStringLiteral("estimate"), QStringLiteral("max-batch"),
             QStringLiteral("compare"), QStringLiteral("plan") }) {
        for (const bool json : { false, true }) {
            QStringList args { command, path };
            if (json)
                args << QStringLiteral("--json");
            const QString err = oneErrorLine(runHeadroomBytes(args));
            QVERIFY2(err.startsWith(QStringLiteral("headroom: error: "))
                    && err.endsWith(QStringLiteral("the model's byte counts overflow 64 bits")),
                qPrintable(command + QStringLiteral(": ") + err));
        }
    }
}

void TestCliHostile::planWorkIsBoundedByTheFile()
{
    // Issue 38, item 5: 25,000 flat layers (650 KB) took 4 s and 340 MB to plan with everything allowed,
    // 10,000 Repeat blocks (1 MB) 22 s and 1.4 GB. The plan analyses at most 65,536 rows in all (the
    // plan's own choice alone where one analysis has more) and says what it left out.
    nlohmann::json flat = nlohmann::json::array();
    for (int i = 0; i < 25000; ++i)
        flat.push_back(i % 2 == 0 ? nlohmann::json { { "type", "Linear" }, { "out_features", 16 } }
                                  : nlohmann::json { { "type", "ReLU" } });
    nlohmann::json blocks = nlohmann::json::array();
    for (int i = 0; i < 10000; ++i)
        blocks.push_back({ { "type", "Repeat" }, { "name", "b" + std::to_string(i) }, { "times", 3 },
            { "layers", { { { "type", "Linear" }, { "out_features", 16 } }, { { "type", "ReLU" } } } } });
    struct Case
    {
        const char* file;
        nlohmann::json layers;
        std::size_t choices;
    };
    for (const Case& c : { Case { "flat.json", flat, 2 }, Case { "blocks.json", blocks, 1 } }) {
        const nlohmann::json m = { { "format", "headroom-model" }, { "version", 1 },
            { "input", { { "shape", { 16 } } } }, { "layers", c.layers } };
        const QString path = m_dir.filePath(QString::fromLatin1(c.file));
        writeFile(path, QByteArray::fromStdString(m.dump()));
        const QStringList plan { QStringLiteral("plan"), path, QStringLiteral("--allow"),
            QStringLiteral("precision,lora,8bit-optimizer") };
        const RunBytes json = runHeadroomBytes(plan + QStringList { QStringLiteral("--json") });
        QCOMPARE(json.exitCode, 0);
        const auto j = nlohmann::json::parse(json.out.toStdString());
        QVERIFY(j["analyses"].get<std::size_t>() <= c.choices);
        const std::string left = j["left_out"][0].get<std::string>();
        QVERIFY2(left.starts_with("only " + std::to_string(c.choices)
                     + " of 27 precision, LoRA and checkpointing "
                       "choices searched"),
            left.c_str());
        const RunBytes table = runHeadroomBytes(plan);
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains("Left out         only "), table.out.left(2000).constData());
    }
}

void TestCliHostile::hfValuesAreCut_data()
{
    // Issue 38, item 10: every string value a Hugging Face config gives was echoed whole (a
    // 1,000,000-character model_type made a 1 MB line). Cut to 64 characters, as docs/cli.md promises.
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("type");
    QTest::newRow("model_type") << QStringLiteral("model_type") << QString();
    QTest::newRow("hidden_act") << QStringLiteral("hidden_act") << QStringLiteral("llama");
    QTest::newRow("activation_function") << QStringLiteral("activation_function") << QStringLiteral("gpt2");
    QTest::newRow("position_embedding_type")
        << QStringLiteral("position_embedding_type") << QStringLiteral("bert");
    QTest::newRow("hidden_activation") << QStringLiteral("hidden_activation") << QStringLiteral("gemma2");
    QTest::newRow("a key given twice") << QStringLiteral("twice") << QStringLiteral("llama");
}

void TestCliHostile::hfValuesAreCut()
{
    QFETCH(QString, key);
    QFETCH(QString, type);
    const std::string huge(1000000, 'x');
    const std::map<std::string, std::string> configs { { "llama", "Llama-2-7b-hf" }, { "gpt2", "gpt2" },
        { "bert", "bert-base-uncased" }, { "gemma2", "gemma-2-9b" } };
    std::string text;
    if (type.isEmpty()) {
        text = nlohmann::json { { "model_type", huge } }.dump();
    } else {
        QFile f(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/")
            + QString::fromStdString(configs.at(type.toStdString())) + QStringLiteral(".json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto config = nlohmann::json::parse(f.readAll().toStdString());
        if (key == QLatin1String("twice")) {
            text = config.dump();
            text.insert(1, "\"" + huge + "\": 1, \"" + huge + "\": 2, ");
        } else {
            config[key.toStdString()] = huge;
            text = config.dump();
        }
    }
    const QString path = m_dir.filePath(QStringLiteral("config.json"));
    writeFile(path, QByteArray::fromStdString(text));
    const QString err = oneErrorLine(runHeadroomBytes({ QStringLiteral("estimate"), path }));
    QVERIFY2(err.size() < 600, qPrintable(err.left(2000)));
    QVERIFY2(err.contains(QStringLiteral("(1,000,000 characters)")), qPrintable(err));
}

void TestCliHostile::optionValuesAreCut()
{
    // A 5,000-digit --moe-imbalance (and any value an option refuses) is quoted cut to 64 characters.
    const QString lenet = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/lenet5.json");
    for (const QString& option : { QStringLiteral("--moe-imbalance"), QStringLiteral("--loss"),
             QStringLiteral("--optimizer-impl"), QStringLiteral("--optimizer") }) {
        const QString err = oneErrorLine(
            runHeadroomBytes({ QStringLiteral("estimate"), lenet, option, QString(5000, QLatin1Char('9')) }));
        QVERIFY2(err.size() < 400 && err.contains(QStringLiteral("(5,000 characters)")), qPrintable(err));
    }
}

void TestCliHostile::failureIsTheErrorAlone()
{
    // Issue 38, item 11: a model whose GenericOp makes a warning and whose byte counts then overflow
    // printed the warning, then the error. A failure prints its error line alone; warnings come only with
    // an answer.
    const QString path = m_dir.filePath(QStringLiteral("generic-overflow.json"));
    writeFile(path, overflowingModel(true));
    for (const QString& command : { QStringLiteral("estimate"), QStringLiteral("max-batch") }) {
        const QString err = oneErrorLine(runHeadroomBytes({ command, path }));
        QVERIFY2(err.startsWith(QStringLiteral("headroom: error: ")), qPrintable(err));
    }
    // `report` is not a failure there (issue 35): the PDF says there is no estimate, and standard error
    // ends with that, after the warnings that came with the (figureless) answer.
    const QString pdf = m_dir.filePath(QStringLiteral("no-estimate.pdf"));
    const RunBytes report = runHeadroomBytes({ QStringLiteral("report"), path, QStringLiteral("-o"), pdf });
    QCOMPARE(report.exitCode, 1);
    QVERIFY(QFile::exists(pdf));
    const QList<QByteArray> lines = report.err.trimmed().split('\n');
    QVERIFY2(
        lines.last().startsWith("headroom: warning: the report has no estimate: "), report.err.constData());
    QVERIFY2(lines.last().contains("overflow"), report.err.constData());
    // With an answer the warning is there, before it.
    const QString ok = m_dir.filePath(QStringLiteral("generic.json"));
    writeFile(ok,
        QByteArray::fromStdString(nlohmann::json { { "format", "headroom-model" }, { "version", 1 },
            { "input", { { "shape", { 8 } } } },
            { "layers",
                { { { "type", "GenericOp" }, { "name", "op" }, { "op", "Custom" },
                    { "output_shape", { 8 } } } } } }
                                      .dump()));
    const RunBytes r = runHeadroomBytes({ QStringLiteral("max-batch"), ok });
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.startsWith("headroom: warning: layer 'op': "), r.err.constData());
}

void TestCliHostile::singleRepeatLimitIsNamed()
{
    // Issue 38, item 12: one Repeat whose 9,000 (or 99,999) iterations each grow the shape was refused as
    // "the nested Repeat blocks ...; nest fewer blocks": nothing is nested. The message names the limit
    // for a single block; 8,192 iterations of one layer are analysed.
    for (const int times : { 9000, 99999, 8192 }) {
        const nlohmann::json m = { { "format", "headroom-model" }, { "version", 1 },
            { "input", { { "shape", { 4 } } } },
            { "layers",
                { { { "type", "Repeat" }, { "name", "grow" }, { "times", times },
                    { "layers",
                        { { { "type", "ConstantPad1d" }, { "padding", { 0, 1 } }, { "value", 0 } } } } } } },
            { "loss", "none" } };
        const QString path = m_dir.filePath(QStringLiteral("grow%1.json").arg(times));
        writeFile(path, QByteArray::fromStdString(m.dump()));
        const RunBytes r = runHeadroomBytes({ QStringLiteral("estimate"), path });
        if (times == 8192) {
            QVERIFY2(r.exitCode == 0, r.err.constData());
            continue;
        }
        const QString err = oneErrorLine(r);
        QVERIFY2(err.contains(QStringLiteral("): the Repeat block's iterations differ "
                                             "from one another")),
            qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("at most 8,192 such iterations of this block's 1 layer")),
            qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("nest")), qPrintable(err));
    }
}

void TestCliHostile::reportTargetsCheckedBeforeDrawing()
{
    // Issue 38, item 13: `-o -` wrote a file named "-"; a 4,200-character path was echoed whole; a file
    // name too long for the file system was refused only once the PDF was drawn.
    const QString lenet = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/lenet5.json");
    const QString dash = oneErrorLine(
        runHeadroomBytes({ QStringLiteral("report"), lenet, QStringLiteral("-o"), QStringLiteral("-") }));
    QVERIFY2(
        dash.contains(QStringLiteral("-o -: the report is a PDF written to a file, not to standard output")),
        qPrintable(dash));
    QVERIFY(!QFile::exists(QStringLiteral("-")));
    const QString longPath = m_dir.filePath(QString(4200, QLatin1Char('d')) + QStringLiteral("/r.pdf"));
    const QString far
        = oneErrorLine(runHeadroomBytes({ QStringLiteral("report"), lenet, QStringLiteral("-o"), longPath }));
    QVERIFY2(
        far.startsWith(QStringLiteral("headroom: error: cannot write the report to \"")) && far.size() < 400,
        qPrintable(far));
    const QString longName = m_dir.filePath(QString(300, QLatin1Char('n')) + QStringLiteral(".pdf"));
    const QString name
        = oneErrorLine(runHeadroomBytes({ QStringLiteral("report"), lenet, QStringLiteral("-o"), longName }));
    QVERIFY2(
        name.contains(QStringLiteral("the file name is 304 bytes, more than the 255 its folder's file system "
                                     "allows; choose a shorter name")),
        qPrintable(name));
    QVERIFY2(name.size() < 400, qPrintable(name));
}

void TestCliHostile::onnxThroughAFifo()
{
    // Issue 38, item 13: a valid ONNX file read through a FIFO was refused ("Operation not supported"):
    // it is read into memory once, never sought.
    const QString source = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/lenet5.onnx");
    const QString fifo = m_dir.filePath(QStringLiteral("piped.onnx"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QProcess writer;
    writer.start(QStringLiteral("/bin/sh"),
        { QStringLiteral("-c"), QStringLiteral("cat \"$0\" > \"$1\""), source, fifo });
    QVERIFY(writer.waitForStarted());
    const RunBytes piped = runHeadroomBytes({ QStringLiteral("max-batch"), fifo });
    QVERIFY(writer.waitForFinished());
    const RunBytes file = runHeadroomBytes({ QStringLiteral("max-batch"), source });
    QVERIFY2(piped.exitCode == 0, piped.err.constData());
    QCOMPARE(piped.out, file.out);
}

QTEST_GUILESS_MAIN(TestCliHostile)
#include "tst_clihostile.moc"
