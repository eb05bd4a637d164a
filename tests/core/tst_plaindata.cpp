// The plain-data readers of measured runs (headroom/measured/PlainData.h): pickles of every opcode across
// protocols 0 to 5 against the values Python itself read back from them (tests/data/measured/
// make_plain_pickles.py writes both, never from this reader's output), hostile pickles refused with the
// opcode, byte and limit named, JSON through the SAX reader, the memory_viz page's embedded pickle, gzip.
#include "headroom/measured/PlainData.h"

#include <QTest>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

using namespace headroom;
using nlohmann::json;

namespace {

const std::string kData = HEADROOM_TEST_SOURCE_DIR "/tests/data/measured/";

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

json readJson(const std::string& path)
{
    return json::parse(readFile(path));
}

std::string hex(std::string_view bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const char c : bytes) {
        out += digits[(static_cast<unsigned char>(c) >> 4) & 0xF];
        out += digits[static_cast<unsigned char>(c) & 0xF];
    }
    return out;
}

/// "" when `v` holds what the script's tagged JSON says ({"t": kind, "v": value}), else the first difference.
std::string differs(const PlainValue& v, const json& expected, const std::string& path)
{
    const std::string t = expected.at("t");
    const auto mismatch = [&](const std::string& what) { return path + ": " + what; };
    if (!v.valid()) {
        return mismatch("missing");
    }
    const std::string kind(plainKindName(v.kind()));
    const std::map<std::string, std::string> python { { "none", "None" }, { "bool", "bool" },
        { "int", "int" }, { "float", "float" }, { "str", "str" }, { "bytes", "bytes" }, { "list", "list" },
        { "tuple", "tuple" }, { "dict", "dict" } };
    if (python.at(t) != kind) {
        return mismatch("a " + kind + ", expected a " + python.at(t));
    }
    if (t == "bool" && v.asBool() != expected.at("v").get<bool>()) {
        return mismatch("wrong bool");
    }
    if (t == "int" && std::to_string(v.asInt()) != expected.at("v").get<std::string>()) {
        return mismatch(std::to_string(v.asInt()) + ", expected " + expected.at("v").get<std::string>());
    }
    if (t == "float") {
        const std::string text = expected.at("v");
        const double want = std::strtod(text.c_str(), nullptr);
        const double got = v.asDouble();
        const bool same = std::isnan(want)
            ? std::isnan(got)
            : std::bit_cast<std::uint64_t>(want) == std::bit_cast<std::uint64_t>(got);
        if (!same) {
            return mismatch(std::to_string(got) + ", expected " + text);
        }
    }
    if (t == "str" && v.asString() != expected.at("v").get<std::string>()) {
        return mismatch(
            "'" + std::string(v.asString()) + "', expected '" + expected.at("v").get<std::string>() + "'");
    }
    if (t == "bytes" && hex(v.asString()) != expected.at("v").get<std::string>()) {
        return mismatch(hex(v.asString()) + ", expected " + expected.at("v").get<std::string>());
    }
    if (t == "list" || t == "tuple" || t == "dict") {
        const auto& items = expected.at("v");
        if (v.size() != items.size()) {
            return mismatch(std::to_string(v.size()) + " items, expected " + std::to_string(items.size()));
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            std::string d;
            if (t == "dict") {
                d = differs(v.keyAt(i), items[i][0], path + "{key " + std::to_string(i) + "}");
                if (d.empty()) {
                    d = differs(v.valueAt(i), items[i][1], path + "{value " + std::to_string(i) + "}");
                }
            } else {
                d = differs(v[i], items[i], path + "[" + std::to_string(i) + "]");
            }
            if (!d.empty()) {
                return d;
            }
        }
    }
    return {};
}

} // namespace

class TestPlainData : public QObject
{
    Q_OBJECT

private slots:
    void builderAndAccessors()
    {
        PlainDocument doc;
        const auto a = doc.addString("a");
        const auto one = doc.addInt(1);
        const auto two = doc.addInt(-2);
        const auto f = doc.addFloat(2.5);
        const auto list = doc.addContainer(PlainKind::List, { one, two, f });
        const auto b = doc.addString("b");
        const auto bytes = doc.addString(std::string_view("\0\1", 2), PlainKind::Bytes);
        const auto yes = doc.addBool(true);
        const auto none = doc.addNone();
        const auto dict = doc.addContainer(PlainKind::Dict, { a, list, b, bytes, a, yes, one, none });
        doc.setRoot(dict);

        const auto root = doc.root();
        QCOMPARE(root.kind(), PlainKind::Dict);
        QCOMPARE(root.size(), std::size_t { 4 }); // four entries, one an int key
        QCOMPARE(root.find("a").kind(), PlainKind::Bool); // "a" repeated: the later value, as Python's dict
        QCOMPARE(root.find("b").asString(), std::string_view("\0\1", 2));
        QCOMPARE(root.find("b").kind(), PlainKind::Bytes);
        QVERIFY(!root.find("c").valid());
        QCOMPARE(root.keyAt(3).asInt(), std::int64_t { 1 });
        QVERIFY(root.valueAt(3).isNone());
        const auto items = root.valueAt(0);
        QCOMPARE(items.size(), std::size_t { 3 });
        QCOMPARE(items[1].asInt(), std::int64_t { -2 });
        QCOMPARE(items[2].asDouble(), 2.5);
        QCOMPARE(items[0].asDouble(), 1.0);
        QVERIFY(!items[3].valid());
        QVERIFY(!items[2].isInteger());
        QCOMPARE(items[2].asInt(), std::int64_t { 0 });
        QVERIFY(root.find("a").asBool());
        QVERIFY(root.find("a").isInteger());
        QVERIFY(!root[0].valid()); // a dict is not a sequence
        QCOMPARE(plainKindName(PlainKind::Dict), std::string_view("dict"));
        QCOMPARE(plainKindName(PlainKind::None), std::string_view("None"));
        QCOMPARE(plainKindName(PlainKind::String), std::string_view("str"));
        QVERIFY(doc.memoryBytes() >= 10 * sizeof(PlainDocument::Node));
    }

    void pickles_data()
    {
        QTest::addColumn<QString>("file");
        const auto expected = readJson(kData + "plain/expected.json");
        QVERIFY2(expected.size() >= 20, "make_plain_pickles.py's files are missing");
        for (const auto& [name, value] : expected.items()) {
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }
    void pickles()
    {
        QFETCH(QString, file);
        const auto expected = readJson(kData + "plain/expected.json").at(file.toStdString());
        const auto doc = readPickle(readFile(kData + "plain/" + file.toStdString()));
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().message.c_str());
        const auto d = differs(doc->root(), expected, "root");
        QVERIFY2(d.empty(), d.c_str());
    }

    /// PyTorch's snapshot shares one frame list between trace entries through the memo: one node.
    void memoSharesNodes()
    {
        const auto doc = readPickle(readFile(kData + "plain/snapshot_p4.pickle"));
        QVERIFY(doc.ok());
        const auto trace = doc->root().find("device_traces")[0];
        QCOMPARE(trace.size(), std::size_t { 7 });
        QCOMPARE(trace[0].find("frames").node(), trace[1].find("frames").node());
        QCOMPARE(trace[0].find("frames").node(),
            doc->root().find("segments")[0].find("blocks")[0].find("frames").node());
        QCOMPARE(trace[0].find("frames").size(), std::size_t { 3 });
        // 0x7F3A_0000_0000 + 512 * 2, as the script wrote it
        QCOMPARE(trace[2].find("addr").asInt(), std::int64_t { 0x7F3A00000000LL + 1024 });
        QCOMPARE(trace[6].find("device_free").asInt(), std::int64_t { 1 } << 20);
    }

    void hostile_data()
    {
        QTest::addColumn<QString>("file");
        const auto expected = readJson(kData + "hostile/expected.json");
        QVERIFY2(expected.size() >= 100, "make_plain_pickles.py's hostile files are missing");
        for (const auto& [name, words] : expected.items()) {
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
        }
    }
    void hostile()
    {
        QFETCH(QString, file);
        const auto words = readJson(kData + "hostile/expected.json").at(file.toStdString());
        const auto doc = readPickle(readFile(kData + "hostile/" + file.toStdString()));
        QVERIFY2(!doc.ok(), "a hostile pickle was read");
        const auto& message = doc.error().message;
        QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
        QVERIFY2(message.rfind("byte ", 0) == 0, message.c_str());
        QVERIFY2(doc.error().location.rfind("byte ", 0) == 0, doc.error().location.c_str());
        for (const auto& word : words) {
            const std::string w = word;
            QVERIFY2(message.find(w) != std::string::npos, (message + "  [expected: " + w + "]").c_str());
        }
    }

    void pickleLimits_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("words");
        QTest::newRow("input") << 0 << "beyond the limit of 1000";
        QTest::newRow("nodes") << 1 << "value number 101, beyond the limit of 100 values";
        QTest::newRow("items") << 2 << "items, beyond the limit of 5";
        QTest::newRow("string") << 3 << "beyond the limit of 3";
        QTest::newRow("memo") << 4 << "beyond the limit of 10";
        QTest::newRow("depth") << 5 << "deeper than 2";
    }
    void pickleLimits()
    {
        QFETCH(int, which);
        QFETCH(QString, words);
        PlainLimits limits;
        switch (which) {
        case 0:
            limits.maxInputBytes = 1000;
            break;
        case 1:
            limits.maxNodes = 100;
            break;
        case 2:
            limits.maxContainerItems = 5;
            break;
        case 3:
            limits.maxStringBytes = 3;
            break;
        case 4:
            limits.maxMemo = 10;
            break;
        default:
            limits.maxDepth = 2;
            break;
        }
        for (const char* file : { "snapshot_p0.pickle", "snapshot_p2.pickle", "snapshot_p4.pickle" }) {
            const auto doc = readPickle(readFile(kData + "plain/" + file), limits);
            QVERIFY2(!doc.ok(), file);
            QVERIFY2(doc.error().message.find(words.toStdString()) != std::string::npos,
                doc.error().message.c_str());
        }
    }

    void json_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected"); // tagged, or "error: words"
        QTest::addColumn<int>("limit"); // 0: defaults; 1: 3 items; 2: 4-byte strings; 3: depth 2
        QTest::newRow("values")
            << R"({"a": [1, -2, 3.5, true, null, "x\u00e9"], "b": {}, "c": 9223372036854775807})"
            << R"({"t":"dict","v":[[{"t":"str","v":"a"},{"t":"list","v":[{"t":"int","v":"1"},
                                      {"t":"int","v":"-2"},{"t":"float","v":"3.5"},{"t":"bool","v":true},{"t":"none"},
                                      {"t":"str","v":"xé"}]}],[{"t":"str","v":"b"},{"t":"dict","v":[]}],
                                      [{"t":"str","v":"c"},{"t":"int","v":"9223372036854775807"}]]})"
            << 0;
        QTest::newRow("top-level scalar") << "  42 "
                                          << R"({"t":"int","v":"42"})" << 0;
        QTest::newRow("repeated keys")
            << R"([{"k": 1}, {"k": 2}])"
            << R"({"t":"list","v":[{"t":"dict","v":[[{"t":"str","v":"k"},{"t":"int","v":"1"}]]},
                                             {"t":"dict","v":[[{"t":"str","v":"k"},{"t":"int","v":"2"}]]}]})"
            << 0;
        // line 2 is `  "a": tru`: the newline after "tru" is its 11th character.
        QTest::newRow("syntax") << "{\n  \"a\": tru\n}"
                                << "error: line 2, column 11: syntax error" << 0;
        QTest::newRow("empty") << ""
                               << "error: line 1, column 1:" << 0;
        QTest::newRow("trailing") << "[1] [2]"
                                  << "error: line 1, column 5:" << 0;
        QTest::newRow("beyond int64") << R"({"x": [18446744073709551615]})"
                                      << "error: x[0]: the int 18446744073709551615 is beyond" << 0;
        QTest::newRow("items") << R"({"x": [1, 2, 3, 4]})"
                               << "error: x[3]: more than 3 items" << 1;
        QTest::newRow("string") << R"({"a": [0, {"b": "hello"}]})"
                                << "error: a[1].b: a string of 5 bytes, beyond the limit of 4" << 2;
        QTest::newRow("depth") << R"({"a": {"b": {"c": 1}}})"
                               << "error: a.b: containers nested deeper than 2" << 3;
        QTest::newRow("key with a newline") << R"({"a\nb": "hello"})"
                                            << "error: a?b: a string of 5 bytes" << 2;
        QTest::newRow("overflow") << "[1e400]"
                                  << "error: line 1, column 6: number overflow parsing '1e400'" << 0;
    }
    void json()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QFETCH(int, limit);
        PlainLimits limits;
        if (limit == 1) {
            limits.maxContainerItems = 3;
        } else if (limit == 2) {
            limits.maxStringBytes = 4;
        } else if (limit == 3) {
            limits.maxDepth = 2;
        }
        const auto doc = readPlainJson(text.toStdString(), limits);
        if (expected.startsWith(QStringLiteral("error: "))) {
            QVERIFY2(!doc.ok(), "bad JSON was read");
            const auto words = expected.mid(7).toStdString();
            QVERIFY2(doc.error().message.find(words) != std::string::npos, doc.error().message.c_str());
            QVERIFY2(doc.error().message.find('\n') == std::string::npos, doc.error().message.c_str());
            return;
        }
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().message.c_str());
        const auto d = differs(doc->root(), json::parse(expected.toStdString()), "root");
        QVERIFY2(d.empty(), d.c_str());
    }

    /// 10,000 nested arrays: refused at depth 65, not a stack overflow; invalid UTF-8 refused.
    void jsonDeepInput()
    {
        const std::string deep = std::string(10000, '[') + std::string(10000, ']');
        const auto doc = readPlainJson(deep);
        QVERIFY(!doc.ok());
        QVERIFY2(
            doc.error().message.find("deeper than 64") != std::string::npos, doc.error().message.c_str());
        // Invalid UTF-8 in a string: the lone byte ff is the third character.
        const auto bad = readPlainJson(std::string("[\"\xff\"]"));
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.rfind("line 1, column 3: ", 0) == 0, bad.error().message.c_str());
    }

    void memoryVizPage_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("trace_plot") << "trace_plot.html";
        QTest::newRow("segment_plot") << "segment_plot.html";
    }
    void memoryVizPage()
    {
        QFETCH(QString, file);
        const auto name = file.toStdString();
        const auto pickle = pickleFromMemoryVizHtml(readFile(kData + "viz/" + name));
        QVERIFY2(pickle.ok(), pickle.ok() ? "" : pickle.error().message.c_str());
        QCOMPARE(pickle->back(), '.'); // the NUL padding dropped
        const auto doc = readPickle(*pickle);
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().message.c_str());
        const auto d = differs(doc->root(), readJson(kData + "viz/expected.json").at(name), "root");
        QVERIFY2(d.empty(), d.c_str());
    }

    void memoryVizPageErrors_data()
    {
        QTest::addColumn<QString>("html");
        QTest::addColumn<QString>("words");
        QTest::newRow("no payload") << "<html><body>hello</body></html>"
                                    << "byte 0: no embedded snapshot";
        // 'const local_files = [{"name": "s", "base64": "' is 46 bytes and 'gAJO' 4 more: the '$' is byte 50.
        QTest::newRow("garbage") << R"(const local_files = [{"name": "s", "base64": "gAJO$C4A"}])"
                                 << "byte 50: '$' is not base64";
        QTest::newRow("length") << R"({"base64": "gAJOLgA"})"
                                << "not a multiple of 4";
        QTest::newRow("padding") << R"({"base64": "gA==LgAA"})"
                                 << "after its '=' padding";
        QTest::newRow("unterminated") << "{\"base64\": \"gAJOLgAA" /* moc misreads this one as a raw string */
                                      << "no closing quote";
        QTest::newRow("no string") << R"({"base64": 12})"
                                   << "not followed by a string";
    }
    void memoryVizPageErrors()
    {
        QFETCH(QString, html);
        QFETCH(QString, words);
        const auto pickle = pickleFromMemoryVizHtml(html.toStdString());
        QVERIFY(!pickle.ok());
        QVERIFY2(pickle.error().message.find(words.toStdString()) != std::string::npos,
            pickle.error().message.c_str());
    }

    /// "gAJOLgAA" is base64 of 80 02 4E 2E 00 00: PROTO 2, NONE, STOP and two NULs of padding.
    void memoryVizPageSmall()
    {
        const auto pickle
            = pickleFromMemoryVizHtml(R"(x = [{"name": "snapshot.pickle", "base64": "gAJOLgAA"}])");
        QVERIFY(pickle.ok());
        QCOMPARE(*pickle, std::string("\x80\x02N.", 4));
        QVERIFY(readPickle(*pickle)->root().isNone());
        const auto escaped = pickleFromMemoryVizHtml(R"({"base64": "\/w=="})"); // "/w==" is the byte ff
        QVERIFY(escaped.ok());
        QCOMPARE(*escaped, std::string("\xff"));
    }

    void gzipped()
    {
        const auto text = gunzip(readFile(kData + "gzip/timeline.json.gz"));
        QVERIFY2(text.ok(), text.ok() ? "" : text.error().message.c_str());
        QCOMPARE(*text, readFile(kData + "gzip/timeline.json"));
        const auto doc = readPlainJson(*text);
        QVERIFY(doc.ok());
        QCOMPARE(doc->root()[0][2].asInt(), std::int64_t { 3000 });
        QCOMPARE(doc->root()[1][2][3].asInt(), std::int64_t { 30 });

        const auto two = gunzip(readFile(kData + "gzip/two_members.json.gz"));
        QVERIFY(two.ok());
        QCOMPARE(*two, std::string("[1, 2]"));

        const auto bomb = readFile(kData + "gzip/bomb_10mib.gz");
        QVERIFY(bomb.size() < 20000);
        PlainLimits small;
        small.maxInputBytes = 1 << 20;
        const auto refused = gunzip(bomb, small);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("beyond the limit of 1048576 bytes") != std::string::npos,
            refused.error().message.c_str());
        const auto inflated = gunzip(bomb);
        QVERIFY(inflated.ok());
        QCOMPARE(inflated->size(), std::size_t { 10 } << 20); // 10 MiB of zeros, as written

        const auto corrupt = gunzip(readFile(kData + "gzip/corrupt.json.gz"));
        QVERIFY(!corrupt.ok());
        QVERIFY2(
            corrupt.error().message.find("corrupt") != std::string::npos, corrupt.error().message.c_str());
        const auto truncated = gunzip(readFile(kData + "gzip/truncated.json.gz"));
        QVERIFY(!truncated.ok());
        QVERIFY2(truncated.error().message.find("truncated") != std::string::npos,
            truncated.error().message.c_str());
        const auto notGzip = gunzip("[1, 2]");
        QVERIFY(!notGzip.ok());
        QVERIFY2(
            notGzip.error().message.find("not gzip") != std::string::npos, notGzip.error().message.c_str());
        auto trailing = readFile(kData + "gzip/timeline.json.gz") + "junk";
        QVERIFY(!gunzip(trailing).ok());
    }
};

QTEST_APPLESS_MAIN(TestPlainData)
#include "tst_plaindata.moc"
