#include "ErrorText.h"

#include <QTest>

using headroom::Error;
using headroom::ui::ErrorText;

class TestErrorText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void position_data();
    void position();
    void forUser_data();
    void forUser();
    void withoutLayer_data();
    void withoutLayer();
    void printable_data();
    void printable();
};

void TestErrorText::position_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("position");
    QTest::newRow("top level") << "layers[0]"
                               << "1";
    QTest::newRow("nested") << "layers[3].layers[1]"
                            << "4.2";
    QTest::newRow("deep") << "layers[10].layers[0].layers[9]"
                          << "11.1.10";
    QTest::newRow("not a layer") << "input.shape"
                                 << "";
    QTest::newRow("an attribute") << "layers[2].kernel_size"
                                  << "";
}

void TestErrorText::position()
{
    QFETCH(QString, path);
    QFETCH(QString, position);
    QCOMPARE(ErrorText::position(path.toStdString()), position);
}

void TestErrorText::forUser_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("expected");
    // The analysis's forms (core/src/analysis/, Attributes.cpp), in the table's 1-based numbering.
    QTest::newRow("layer with name") << "layers[0] (Conv2d \"conv\"): kernel 11x11 does not fit"
                                     << "layers[0]"
                                     << "Layer 1 (conv): kernel 11x11 does not fit";
    QTest::newRow("layer without name") << "layers[3].layers[1] (ReLU): takes 1 input but gets 2"
                                        << "layers[3].layers[1]"
                                        << "Layer 4.2 (features.3.0.1): takes 1 input but gets 2";
    QTest::newRow("attribute") << "layers[1].layers[0].out_channels must be a positive integer"
                               << "layers[1].layers[0].out_channels"
                               << "Layer 2.1 (features.3.0.1): out_channels must be a positive integer";
    QTest::newRow("input of a layer")
        << "layers[2].inputs[1] \"x\" does not name an earlier layer"
        << "layers[2].inputs[1]"
        << "Layer 3 (features.3.0.1): input 2 \"x\" does not name an earlier layer";
    QTest::newRow("in a file") << "model.json: layers[4].kernel_size must be a positive integer"
                               << "layers[4].kernel_size"
                               << "model.json: kernel_size of layer 5 must be a positive integer";
    QTest::newRow("block") << "m.json: layers[2].layers must hold at least one layer"
                           << "layers[2].layers"
                           << "m.json: the layers of block 3 must hold at least one layer";
    QTest::newRow("input shape") << "input.shape[1] must be a positive integer"
                                 << "input.shape[1]"
                                 << "dimension 2 of the input shape must be a positive integer";
    QTest::newRow("LoRA target") << "lora.targets[0] \"q\" matches no Linear layer"
                                 << "lora.targets[0]"
                                 << "LoRA target 1 \"q\" matches no Linear layer";
    QTest::newRow("nothing to convert") << "the GPU count must be at least 1"
                                        << "parallel.gpus"
                                        << "the GPU count must be at least 1";
}

void TestErrorText::forUser()
{
    QFETCH(QString, message);
    QFETCH(QString, location);
    QFETCH(QString, expected);
    // Names as the table shows unnamed layers (the analysis's row names).
    const auto names = [](const std::string& path) {
        return path == "layers[0]" ? QString() : QStringLiteral("features.3.0.1");
    };
    QCOMPARE(ErrorText::forUser(Error { message.toStdString(), location.toStdString() }, names), expected);
}

void TestErrorText::withoutLayer_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("expected");
    QTest::newRow("infer") << "layers[0] (Conv2d \"conv\"): kernel 11x11 does not fit"
                           << "kernel 11x11 does not fit";
    QTest::newRow("attribute") << "layers[1].layers[0].out_channels must be a positive integer"
                               << "out_channels must be a positive integer";
    QTest::newRow("input") << "layers[2].inputs[0] \"x\" does not name an earlier layer"
                           << "input 1 \"x\" does not name an earlier layer";
    QTest::newRow("plain") << "depends on an invalid layer"
                           << "depends on an invalid layer";
}

void TestErrorText::withoutLayer()
{
    QFETCH(QString, message);
    QFETCH(QString, expected);
    QCOMPARE(ErrorText::withoutLayer(Error { message.toStdString(), {} }), expected);
}

void TestErrorText::printable_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QByteArray("line 1, column 1") << "line 1, column 1";
    QTest::newRow("UTF-8 kept") << QByteArray("größe × 2") << QStringLiteral("größe × 2");
    QTest::newRow("line breaks kept") << QByteArray("a\nb\tc") << "a\nb\tc";
    QTest::newRow("binary") << QByteArray::fromHex("27fffe0027") << "'\\xFF\\xFE\\x00'";
    QTest::newRow("C1 control") << QByteArray::fromHex("c285") << "\\xC2\\x85";
    QTest::newRow("overlong") << QByteArray::fromHex("c0af") << "\\xC0\\xAF";
    QTest::newRow("cut short") << QByteArray::fromHex("e282") << "\\xE2\\x82";
}

void TestErrorText::printable()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QCOMPARE(
        ErrorText::printable(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()))),
        expected);
}

QTEST_APPLESS_MAIN(TestErrorText)
#include "tst_errortext.moc"
