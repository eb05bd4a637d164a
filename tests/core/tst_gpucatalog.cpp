// The GPU catalogue: lookups as the CLI's --gpu promises them, and the shipped catalogue's content.
#include "headroom/setup/GpuCatalog.h"

#include <QTest>
#include <set>

using namespace headroom;

namespace {
const char* kSmallCatalog = R"({"format": "headroom-gpus", "version": 1, "gpus": [
  {"name": "GeForce GTX 1080", "vendor": "NVIDIA", "family": "GeForce 10", "aliases": ["GTX 1080"],
   "memory_bytes": 8589934592, "bandwidth_gbps": 320, "fp32_tflops": 8.87},
  {"name": "GeForce GTX 1080 Ti", "vendor": "NVIDIA", "family": "GeForce 10", "aliases": ["GTX 1080 Ti"],
   "memory_bytes": 11811160064, "bandwidth_gbps": 484, "fp32_tflops": 11.3},
  {"name": "GeForce RTX 4090", "vendor": "NVIDIA", "family": "GeForce 40", "aliases": ["RTX 4090"],
   "memory_bytes": 25769803776, "bandwidth_gbps": 1008, "fp32_tflops": 82.6}
]})";
} // namespace

class TestGpuCatalog : public QObject
{
    Q_OBJECT
private slots:
    void findsByNameAliasOrPart_data();
    void findsByNameAliasOrPart();
    void ambiguousListsCandidates();
    void unknownSaysHowToList();
    void malformedCatalog_data();
    void malformedCatalog();
    void customGpu();
    void shippedCatalog();
};

void TestGpuCatalog::findsByNameAliasOrPart_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("expected");
    QTest::newRow("exact") << "GeForce GTX 1080"
                           << "GeForce GTX 1080";
    QTest::newRow("without brand") << "GTX 1080"
                                   << "GeForce GTX 1080";
    QTest::newRow("case-insensitive") << "gtx 1080"
                                      << "GeForce GTX 1080";
    QTest::newRow("ti") << "1080 ti"
                        << "GeForce GTX 1080 Ti";
    QTest::newRow("unique part") << "4090"
                                 << "GeForce RTX 4090";
}

void TestGpuCatalog::findsByNameAliasOrPart()
{
    QFETCH(QString, query);
    QFETCH(QString, expected);
    const auto catalog = GpuCatalog::fromJson(kSmallCatalog);
    QVERIFY(catalog.ok());
    const auto gpu = catalog->find(query.toStdString());
    QVERIFY2(gpu.ok(), gpu.ok() ? "" : gpu.error().message.c_str());
    QCOMPARE(QString::fromStdString(gpu->name), expected);
}

void TestGpuCatalog::ambiguousListsCandidates()
{
    const auto gpu = GpuCatalog::fromJson(kSmallCatalog)->find("1080");
    QVERIFY(!gpu.ok());
    QCOMPARE(gpu.error().message,
        std::string("GPU \"1080\" is ambiguous: it matches GeForce GTX 1080, GeForce GTX 1080 Ti"));
}

void TestGpuCatalog::unknownSaysHowToList()
{
    const auto gpu = GpuCatalog::fromJson(kSmallCatalog)->find("Voodoo 2");
    QVERIFY(!gpu.ok());
    QCOMPARE(
        gpu.error().message, std::string("unknown GPU \"Voodoo 2\"; `headroom gpus` lists the known ones"));
    // A 100,000-character name is cut to 64 characters and its length (issue #17).
    const auto huge = GpuCatalog::fromJson(kSmallCatalog)->find(std::string(100000, 'x'));
    QVERIFY(!huge.ok());
    QCOMPARE(huge.error().message,
        "unknown GPU \"" + std::string(64, 'x')
            + "\u2026\" (100,000 characters); `headroom gpus` lists the known ones");
}

void TestGpuCatalog::malformedCatalog_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("truncated") << R"({"format": "headroom-gpus", "gpus": [)"
                               << "GPU catalogue: line 1, column";
    QTest::newRow("wrong format") << R"({"format": "x", "gpus": []})"
                                  << "GPU catalogue: format must be";
    QTest::newRow("negative memory")
        << R"({"format": "headroom-gpus", "gpus": [{"name":"A","vendor":"V","family":"F","memory_bytes":-1,"bandwidth_gbps":1,"fp32_tflops":1}]})"
        << "GPU catalogue: gpus[0].memory_bytes must be a positive integer";
    QTest::newRow("missing name") << R"({"format": "headroom-gpus", "gpus": [{"vendor":"V"}]})"
                                  << "GPU catalogue: gpus[0].name must be a non-empty string";
    QTest::newRow("duplicate")
        << R"({"format": "headroom-gpus", "gpus": [{"name":"A","vendor":"V","family":"F","memory_bytes":1,"bandwidth_gbps":1,"fp32_tflops":1},{"name":"A","vendor":"V","family":"F","memory_bytes":1,"bandwidth_gbps":1,"fp32_tflops":1}]})"
        << "GPU catalogue: gpus[1].name \"A\" appears twice";
    // Issue #17: a key given twice in one entry used to keep the last value silently.
    QTest::newRow("key given twice")
        << "{\"format\": \"headroom-gpus\", \"gpus\": [\n "
           "{\"name\":\"A\",\"vendor\":\"V\",\"family\":\"F\",\"memory_bytes\":1,\n  "
           "\"memory_bytes\":2,\"bandwidth_gbps\":1,\"fp32_tflops\":1}]}"
        << "GPU catalogue: gpus[0].memory_bytes is given more than once; give each key once (the "
           "second is at line 3, column 3)";
}

void TestGpuCatalog::malformedCatalog()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const auto catalog = GpuCatalog::fromJson(text.toStdString());
    QVERIFY(!catalog.ok());
    QVERIFY2(
        QString::fromStdString(catalog.error().message).startsWith(message), catalog.error().message.c_str());
}

void TestGpuCatalog::customGpu()
{
    auto catalog = GpuCatalog::fromJson(kSmallCatalog).value();
    Gpu lab;
    lab.name = "Lab card";
    lab.memoryBytes = 12 * 1024ULL * 1024 * 1024;
    catalog.addCustom(lab);
    const auto found = catalog.find("lab card");
    QVERIFY(found.ok());
    QVERIFY(found->custom);
    QCOMPARE(found->memoryBytes, lab.memoryBytes);
}

void TestGpuCatalog::shippedCatalog()
{
    const auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    QVERIFY2(catalog.ok(), catalog.ok() ? "" : catalog.error().message.c_str());
    QVERIFY(catalog->gpus().size() >= 30);
    std::set<std::string> vendors;
    for (const auto& g : catalog->gpus())
        vendors.insert(g.vendor);
    QVERIFY(vendors.contains("NVIDIA") && vendors.contains("AMD"));
    // Vendor sizes are binary: a GTX 1080 has 8 GiB, an RTX 4090 24 GiB, an A100 80GB 80 GiB.
    QCOMPARE(catalog->find("GTX 1080")->memoryBytes, 8ULL << 30);
    QCOMPARE(catalog->find("RTX 4090")->memoryBytes, 24ULL << 30);
    QCOMPARE(catalog->find("A100 80GB")->memoryBytes, 80ULL << 30);
    QVERIFY(!catalog->find("1080").ok()); // the 1080 and the 1080 Ti
    // Every alias finds its own GPU (no alias shadows another GPU).
    for (const auto& g : catalog->gpus()) {
        for (const auto& alias : g.aliases)
            QCOMPARE(catalog->find(alias)->name, g.name);
    }
}

QTEST_APPLESS_MAIN(TestGpuCatalog)
#include "tst_gpucatalog.moc"
