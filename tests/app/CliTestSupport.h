#pragma once

// What the tests of the command line share (tests/app/tst_cli*.cpp): the small models they run `headroom`
// on, the bad input files of the error tables, written into a temporary folder before the first test.
#include "RunHeadroom.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

// LeNet-5: 61,706 parameters; per sample 44,984 activation, 4,104 input and 37,632 transient bytes
// (worked out in tests/core/tst_activations.cpp).
inline constexpr const char* kLeNet = R"({"format": "headroom-model", "version": 1, "name": "LeNet-5",
  "input": {"shape": [1, 32, 32]},
  "layers": [
    {"type": "Conv2d", "out_channels": 6, "kernel_size": 5}, {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2},
    {"type": "Conv2d", "out_channels": 16, "kernel_size": 5}, {"type": "ReLU"}, {"type": "MaxPool2d", "kernel_size": 2},
    {"type": "Flatten"}, {"type": "Linear", "out_features": 120}, {"type": "ReLU"},
    {"type": "Linear", "out_features": 84}, {"type": "ReLU"}, {"type": "Linear", "out_features": 10}]})";

// A two-layer MLP whose every parameter tensor has a multiple of 8 elements (64x64 + 64, 8x64 + 8:
// 4,680 parameters), so sharding over 2, 4 or 8 GPUs divides each tensor exactly: fp32 Adam keeps
// 18,720 bytes of weights, 18,720 of gradients and 37,440 of optimizer state on one GPU.
inline constexpr const char* kMlp = R"({"format": "headroom-model", "version": 1, "name": "Shardable MLP",
  "input": {"shape": [64]},
  "layers": [{"type": "Linear", "name": "fc1", "out_features": 64}, {"type": "ReLU"},
             {"type": "Linear", "name": "fc2", "out_features": 8}]})";

// Attention-style projections on a [16, 64] sequence: q_proj and v_proj 64x64 + 64 (4,160 each),
// head 64x10 + 10 (650): 8,970 base parameters. LoRA rank 8 on q_proj,v_proj adds A (8x64) and B
// (64x8) to each: 2 x 1,024 = 2,048 trainable adapter parameters, every base weight frozen.
inline constexpr const char* kProjections
    = R"({"format": "headroom-model", "version": 1, "name": "Projections",
  "input": {"shape": [16, 64]},
  "layers": [{"type": "Linear", "name": "q_proj", "out_features": 64},
             {"type": "Linear", "name": "v_proj", "out_features": 64}, {"type": "ReLU"},
             {"type": "Linear", "name": "head", "out_features": 10}]})";

/// The command-line tests' inputs, in a temporary folder: written by writeInputFiles() in initTestCase().
class CliFixture
{
protected:
    /// `headroom estimate <args> --json`, parsed; null (with a warning) when the command fails.
    [[nodiscard]] nlohmann::json jsonOf(const QStringList& args);
    /// The models and bad input files the tests name, into m_dir.
    void writeInputFiles();

    QTemporaryDir m_dir;
    QString m_lenet;
    QString m_mlp;
    QString m_tiny;
    QString m_projections;
    QString m_gpt2;
};

inline nlohmann::json CliFixture::jsonOf(const QStringList& args)
{
    const Run r = runHeadroom(
        QStringList { QStringLiteral("estimate") } + args + QStringList { QStringLiteral("--json") });
    if (r.exitCode != 0) {
        qWarning("headroom estimate %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.exitCode,
            qPrintable(r.err));
        return {};
    }
    return nlohmann::json::parse(r.out.toStdString());
}

inline void CliFixture::writeInputFiles()
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
    broken.close();
    const auto writeFile = [&](const QString& name, const QByteArray& text) {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(f.fileName()));
        f.write(text);
        return f.fileName();
    };
    m_mlp = writeFile(QStringLiteral("mlp.json"), kMlp);
    // tests/core's tinyMlp(), whose training step tst_steptimeline works out by hand moment by moment.
    m_tiny = writeFile(QStringLiteral("tiny.json"),
        R"({"format": "headroom-model", "version": 1, "name": "tiny", "input": {"shape": [4]},
                           "layers": [{"type": "Linear", "name": "fc1", "out_features": 8},
                                      {"type": "ReLU", "name": "relu"},
                                      {"type": "Linear", "name": "fc2", "out_features": 2}]})");
    m_projections = writeFile(QStringLiteral("projections.json"), kProjections);
    // Bad files for the error table: an ONNX file cut off mid-way, a config.json with a broken value.
    QFile resnet(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/resnet18.onnx"));
    QVERIFY(resnet.open(QIODevice::ReadOnly));
    writeFile(QStringLiteral("truncated.onnx"), resnet.read(resnet.size() / 2));
    QDir(m_dir.path()).mkpath(QStringLiteral("hf"));
    writeFile(QStringLiteral("hf/config.json"),
        R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 30,
                  "intermediate_size": 11008, "vocab_size": 32000, "max_position_embeddings": 4096})");
    m_gpt2 = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    QVERIFY(QFile::exists(m_gpt2));

    // Issue #17: bad input that crashed, lied or overwrote.
    writeFile(QStringLiteral("duplicate_key.json"),
        QByteArray(kLeNet).replace("\"layers\": [", "\"layers\": [],\n \"layers\": ["));
    const char16_t utf16[] = u"{\"format\": \"headroom-model\"}"; // as Windows Notepad's "Unicode" saves it
    writeFile(QStringLiteral("utf16.json"),
        QByteArray("\xFF\xFE", 2) + QByteArray(reinterpret_cast<const char*>(utf16), sizeof utf16 - 2));
    writeFile(QStringLiteral("random.json"), QByteArray("\xEF\x12\x99\xFF\x41\x80", 6));
    // conv1 with padding 2^31 - 1: (32 + 2 x 2147483647 - 5) / 1 + 1 = 4,294,967,322 per side, so its
    // 6 x 4,294,967,322^2 output has about 1.1e20 elements, more than 64 bits hold.
    writeFile(QStringLiteral("overflow.json"),
        QByteArray(kLeNet).replace("\"kernel_size\": 5}", "\"kernel_size\": 5, \"padding\": 2147483647}"));
    // Linear(8 -> 4) has a [4, 8] weight, Linear(4 -> 8) an [8, 4] one: as many elements, and no
    // matrix product takes one for the other.
    writeFile(QStringLiteral("tied_transposed.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "Linear", "name": "a", "out_features": 4},
                 {"type": "Linear", "name": "b", "out_features": 8, "tied_to": "a"}]})");
    writeFile(QStringLiteral("repeat_name_clash.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "Repeat", "name": "b", "times": 2, "layers": [{"type": "ReLU", "name": "r"}]},
                 {"type": "ReLU", "name": "b.0.r"}]})");
    writeFile(QStringLiteral("index_name_clash.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "ReLU"}, {"type": "ReLU", "name": "0"}]})");
    // Softmax over axis 5 of a [B, 3] output: loads, but cannot be estimated.
    writeFile(QStringLiteral("unestimable.json"),
        R"({"format": "headroom-model", "version": 1, "input": {"shape": [8]},
      "layers": [{"type": "Linear", "out_features": 3}, {"type": "Softmax", "dim": 5}]})");
}
