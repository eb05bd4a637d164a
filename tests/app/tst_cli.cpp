// The command line as scripts use it: the real `headroom` binary run as a process.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

// LeNet-5: 61,706 parameters; per sample 44,984 activation, 4,104 input and 37,632 transient bytes
// (worked out in tests/core/tst_activations.cpp).
const char* kLeNet = R"({"format": "headroom-model", "version": 1, "name": "LeNet-5",
  "input": {"shape": [1, 32, 32]},
  "layers": [
    {"type": "Conv2d", "out_channels": 6, "kernel_size": 5}, {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2},
    {"type": "Conv2d", "out_channels": 16, "kernel_size": 5}, {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2},
    {"type": "Flatten"}, {"type": "Linear", "out_features": 120}, {"type": "ReLU"},
    {"type": "Linear", "out_features": 84}, {"type": "ReLU"}, {"type": "Linear", "out_features": 10}]})";

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run headroom(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(HEADROOM_BINARY), args);
    if (!p.waitForFinished(60000))
        return {};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void versionAndHelp();
    void estimateJson();
    void estimateTable();
    void maxBatch();
    void gpus();
    void errors_data();
    void errors();
    void reportWritesPdf();

private:
    QTemporaryDir m_dir;
    QString m_lenet;
};

void TestCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_lenet = m_dir.filePath(QStringLiteral("lenet.json"));
    QFile f(m_lenet);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kLeNet);
    f.close();
    QFile broken(m_dir.filePath(QStringLiteral("broken.json")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{\"format\": \"headroom-model\",\n  \"version\": 1,\n  \"layers\": [");
}

void TestCli::versionAndHelp()
{
    const Run v = headroom({QStringLiteral("--version")});
    QCOMPARE(v.exitCode, 0);
    QCOMPARE(v.out, QStringLiteral("headroom " HEADROOM_VERSION "\n"));
    const Run h = headroom({QStringLiteral("--help")});
    QCOMPARE(h.exitCode, 0);
    for (const char* fragment : {"GeForce GTX 1080]", "[adam]", "[fp32]", "[32]", "max-batch", "report", "gpus"})
        QVERIFY2(h.out.contains(QLatin1String(fragment)), fragment);
}

void TestCli::estimateJson()
{
    const Run r = headroom({QStringLiteral("estimate"), m_lenet, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t{61706});
    QCOMPARE(j["params"]["trainable"].get<std::uint64_t>(), std::uint64_t{61706});
    QCOMPARE(j["batch"].get<int>(), 32);
    QCOMPARE(j["gpu"]["name"].get<std::string>(), std::string("GeForce GTX 1080"));
    QCOMPARE(j["gpu"]["memory_bytes"].get<std::uint64_t>(), std::uint64_t{8} << 30);
    // Adam fp32 at batch 32: 16 x 61,706 + 32 x (44,984 + 4,104 + 37,632) + 512 MiB overhead.
    QCOMPARE(j["bytes"]["weights"].get<std::uint64_t>(), std::uint64_t{4 * 61706});
    QCOMPARE(j["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t{8 * 61706});
    QCOMPARE(j["bytes"]["activations"].get<std::uint64_t>(), std::uint64_t{32 * 44984});
    QCOMPARE(j["bytes"]["input"].get<std::uint64_t>(), std::uint64_t{32 * 4104});
    QCOMPARE(j["bytes"]["transient"].get<std::uint64_t>(), std::uint64_t{32 * 37632});
    QCOMPARE(j["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t{512} << 20);
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t{3762336 + (512ULL << 20)});
    QVERIFY(j["fits"].get<bool>());
    QCOMPARE(j["max_batch"].get<std::int64_t>(), std::int64_t{92851});
    QCOMPARE(j["layers"].size(), std::size_t{13}); // 12 layers + the loss
    std::uint64_t perSample = 0;
    for (const auto& l : j["layers"])
        perSample += l["activation_bytes_per_sample"].get<std::uint64_t>();
    QCOMPARE(perSample, std::uint64_t{44984});

    const Run amp = headroom({QStringLiteral("estimate"), m_lenet, QStringLiteral("--json"), QStringLiteral("--precision"),
                              QStringLiteral("amp-fp16"), QStringLiteral("--optimizer"), QStringLiteral("sgd"),
                              QStringLiteral("--batch"), QStringLiteral("8"), QStringLiteral("--gpu"), QStringLiteral("RTX 4090")});
    QCOMPARE(amp.exitCode, 0);
    const auto k = nlohmann::json::parse(amp.out.toStdString());
    QCOMPARE(k["bytes"]["activations"].get<std::uint64_t>(), std::uint64_t{8 * 30864});
    QCOMPARE(k["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t{0});
    QCOMPARE(k["gpu"]["memory_bytes"].get<std::uint64_t>(), std::uint64_t{24} << 30);
}

void TestCli::estimateTable()
{
    const Run r = headroom({QStringLiteral("estimate"), m_lenet, QStringLiteral("--batch"), QStringLiteral("64")});
    QCOMPARE(r.exitCode, 0);
    for (const char* fragment : {"LeNet-5", "61,706 parameters", "GeForce GTX 1080", "batch 64", "Activations",
                                 "Optimizer state", "Max batch   92851", "CrossEntropyLoss"})
        QVERIFY2(r.out.contains(QLatin1String(fragment)), qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + r.out));
}

void TestCli::maxBatch()
{
    const Run r = headroom({QStringLiteral("max-batch"), m_lenet});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QStringLiteral("92851\n"));
    // A 10 MiB custom card with no overhead: (10 MiB - 987,296) / 86,720 = 109.
    const Run small = headroom({QStringLiteral("max-batch"), m_lenet, QStringLiteral("--gpu-memory-gib"),
                                QString::number(10.0 / 1024.0, 'g', 17), QStringLiteral("--overhead-mib"), QStringLiteral("0")});
    QCOMPARE(small.exitCode, 0);
    QCOMPARE(small.out, QStringLiteral("109\n"));
}

void TestCli::gpus()
{
    const Run r = headroom({QStringLiteral("gpus"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(j.size() >= 30);
    const Run table = headroom({QStringLiteral("gpus")});
    QVERIFY(table.out.contains(QStringLiteral("GeForce GTX 1080")));
}

void TestCli::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("ambiguous gpu") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu"), QStringLiteral("1080")}
                                   << "GPU \"1080\" is ambiguous: it matches GeForce GTX 1080, GeForce GTX 1080 Ti";
    QTest::newRow("unknown gpu") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu"), QStringLiteral("Voodoo")}
                                 << "unknown GPU \"Voodoo\"";
    QTest::newRow("bad batch") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--batch"), QStringLiteral("lots")}
                               << "--batch must be an integer from 1 to 2147483648, not \"lots\"";
    QTest::newRow("zero batch") << QStringList{QStringLiteral("max-batch"), QStringLiteral("@lenet"), QStringLiteral("--batch"), QStringLiteral("0")}
                                << "--batch must be an integer";
    QTest::newRow("bad optimizer") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--optimizer"), QStringLiteral("lion")}
                                   << "--optimizer must be one of sgd|momentum";
    QTest::newRow("bad precision") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--precision"), QStringLiteral("fp8")}
                                   << "--precision must be one of";
    QTest::newRow("unknown option") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--fast")}
                                    << "unknown option --fast";
    QTest::newRow("missing file") << QStringList{QStringLiteral("estimate")} << "estimate needs a model file";
    QTest::newRow("no such file") << QStringList{QStringLiteral("estimate"), QStringLiteral("/nonexistent/model.json")}
                                  << "/nonexistent/model.json: no such file";
    QTest::newRow("truncated file") << QStringList{QStringLiteral("estimate"), QStringLiteral("@broken")}
                                    << "broken.json: line 3, column 14:";
    QTest::newRow("option without value") << QStringList{QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu")}
                                          << "--gpu needs a value";
    QTest::newRow("report without output") << QStringList{QStringLiteral("report"), QStringLiteral("@lenet")}
                                           << "report needs -o OUT.pdf";
}

void TestCli::errors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    for (auto& a : args) {
        if (a.startsWith(QLatin1Char('@')))
            a = m_dir.filePath(a.mid(1) + QStringLiteral(".json"));
    }
    const Run r = headroom(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith(QStringLiteral("headroom: error: ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1); // one clear line
}

void TestCli::reportWritesPdf()
{
    const QString pdf = m_dir.filePath(QStringLiteral("plan.pdf"));
    const Run r = headroom({QStringLiteral("report"), m_lenet, QStringLiteral("-o"), pdf, QStringLiteral("--batch"), QStringLiteral("16")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(5) == "%PDF-");
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
