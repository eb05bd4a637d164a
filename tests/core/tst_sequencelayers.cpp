// Sequence layers: Embedding, PositionalEmbedding, MultiheadAttention, TransformerEncoderLayer,
// LSTM and GRU. Parameter counts are the ones real PyTorch gives (torch 1.13,
// sum(p.numel() for p in m.parameters()) and named_parameters()). Saved bytes per sample are worked
// out by hand, in comments, from the formulas documented in core/src/layers/ (SelfAttention.cpp,
// TransformerEncoderLayer.cpp, Recurrent.cpp). Per sample, T = sequence, E = embedding, h = heads,
// F = feed-forward width, H = hidden size, L = layers, D = directions. Loss is "none" throughout so
// only the layers' own tensors count; the network input is counted as input, never as activations.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/layers/LayerRegistry.h"

#include <QTest>
#include <algorithm>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

namespace {

/// A network from a JSON array of layers ({"type": ..., attributes...}), loss none.
Network sequenceNetwork(const QList<qint64>& input, const QString& dtype, const QString& layersJson)
{
    std::vector<LayerSpec> layers;
    for (const auto& l : json::parse(layersJson.toStdString())) {
        json attributes = l;
        attributes.erase("type");
        layers.push_back(layer(l.at("type").get<std::string>(), attributes));
    }
    return network(std::vector<std::int64_t>(input.begin(), input.end()), std::move(layers), Loss::None,
        *parseDType(dtype.toStdString()));
}

/// Runs one kind's infer() directly, to look at parameter names and saved-tensor labels.
LayerOutcome inferDirect(const std::string& type, const json& attributes, std::vector<TensorInfo> inputs,
    Precision precision = Precision::Fp32)
{
    const LayerKind* kind = LayerRegistry::builtin().find(type);
    if (kind == nullptr)
        qFatal("no kind %s", type.c_str());
    auto attrs = Attributes::validate(kind->attributes(), attributes, "layers[0]");
    if (!attrs)
        qFatal("%s", attrs.error().message.c_str());
    const LayerContext ctx { attrs.value(), inputs, precision };
    auto outcome = kind->infer(ctx);
    if (!outcome)
        qFatal("%s", outcome.error().message.c_str());
    return outcome.value();
}

std::vector<std::string> parameterNames(const LayerOutcome& o)
{
    std::vector<std::string> names;
    for (const auto& p : o.params)
        names.push_back(p.name);
    return names;
}

bool hasSaved(const LayerOutcome& o, const std::string& label)
{
    return std::any_of(o.saved.begin(), o.saved.end(),
        [&](const auto& s) { return s.label.find(label) != std::string::npos; });
}

} // namespace

class TestSequenceLayers : public QObject
{
    Q_OBJECT
private slots:
    void parameters_data();
    void parameters();
    void parameterNamesMatchPyTorch();
    void savedBytes_data();
    void savedBytes();
    void mhaKeepsProbabilitiesOnlyWithWeights();
    void autocastWeightCopies();
    void lstmReserveMatchesCudnnReport();
    void transformerLanguageModel();
    void errors_data();
    void errors();
};

void TestSequenceLayers::parameters_data()
{
    QTest::addColumn<QList<qint64>>("input");
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("layerJson");
    QTest::addColumn<qint64>("params");
    // All figures printed by torch 1.13 except where a comment says otherwise.
    QTest::newRow("Embedding(50257, 768)")
        << QList<qint64> { 1024 } << "int64"
        << R"({"type":"Embedding","num_embeddings":50257,"embedding_dim":768})" << qint64 { 38597376 };
    QTest::newRow("Embedding(30522, 768, padding_idx=0)")
        << QList<qint64> { 512 } << "int64"
        << R"({"type":"Embedding","num_embeddings":30522,"embedding_dim":768,"padding_idx":0})"
        << qint64 { 23440896 };
    // GPT-2's wpe: 1024 x 768.
    QTest::newRow("PositionalEmbedding(1024) on [1024, 768]")
        << QList<qint64> { 1024, 768 } << "float32"
        << R"({"type":"PositionalEmbedding","num_embeddings":1024})" << qint64 { 786432 };
    QTest::newRow("MultiheadAttention(512, 8)")
        << QList<qint64> { 20, 512 } << "float32"
        << R"({"type":"MultiheadAttention","num_heads":8})" << qint64 { 1050624 };
    QTest::newRow("MultiheadAttention(512, 8, bias=False)")
        << QList<qint64> { 20, 512 } << "float32"
        << R"({"type":"MultiheadAttention","num_heads":8,"bias":false})" << qint64 { 1048576 };
    QTest::newRow("MultiheadAttention(512, 8, add_bias_kv=True)")
        << QList<qint64> { 20, 512 } << "float32"
        << R"({"type":"MultiheadAttention","num_heads":8,"add_bias_kv":true})" << qint64 { 1051648 };
    QTest::newRow("TransformerEncoderLayer(768, 12, 3072)")
        << QList<qint64> { 128, 768 } << "float32"
        << R"({"type":"TransformerEncoderLayer","nhead":12,"dim_feedforward":3072})" << qint64 { 7087872 };
    QTest::newRow("TransformerEncoderLayer(512, 8)")
        << QList<qint64> { 32, 512 } << "float32"
        << R"({"type":"TransformerEncoderLayer","nhead":8})" << qint64 { 3152384 };
    QTest::newRow("TransformerEncoderLayer(64, 4, 256)")
        << QList<qint64> { 16, 64 } << "float32"
        << R"({"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":256})" << qint64 { 49984 };
    // bias=False (PyTorch >= 2.1; not in torch 1.13) drops the projection, linear and LayerNorm
    // biases: 3*64*64 + 64*64 + 256*64 + 64*256 + 2*64 = 49,280.
    QTest::newRow("TransformerEncoderLayer(64, 4, 256, bias=False)")
        << QList<qint64> { 16, 64 } << "float32"
        << R"({"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":256,"bias":false})"
        << qint64 { 49280 };
    QTest::newRow("LSTM(256, 512, num_layers=2, bidirectional=True)")
        << QList<qint64> { 100, 256 } << "float32"
        << R"({"type":"LSTM","hidden_size":512,"num_layers":2,"bidirectional":true})" << qint64 { 9453568 };
    QTest::newRow("LSTM(256, 512, 2, bidirectional, bias=False)")
        << QList<qint64> { 100, 256 } << "float32"
        << R"({"type":"LSTM","hidden_size":512,"num_layers":2,"bidirectional":true,"bias":false})"
        << qint64 { 9437184 };
    QTest::newRow("LSTM(128, 256, num_layers=2)")
        << QList<qint64> { 64, 128 } << "float32"
        << R"({"type":"LSTM","hidden_size":256,"num_layers":2})" << qint64 { 921600 };
    QTest::newRow("LSTM(123, 320, num_layers=4)")
        << QList<qint64> { 50, 123 } << "float32"
        << R"({"type":"LSTM","hidden_size":320,"num_layers":4})" << qint64 { 3034880 };
    QTest::newRow("GRU(123, 320, num_layers=4)")
        << QList<qint64> { 50, 123 } << "float32"
        << R"({"type":"GRU","hidden_size":320,"num_layers":4})" << qint64 { 2276160 };
    QTest::newRow("GRU(128, 256, num_layers=3, bidirectional=True)")
        << QList<qint64> { 30, 128 } << "float32"
        << R"({"type":"GRU","hidden_size":256,"num_layers":3,"bidirectional":true})" << qint64 { 2958336 };
    QTest::newRow("GRU(100, 64)") << QList<qint64> { 30, 100 } << "float32"
                                  << R"({"type":"GRU","hidden_size":64})" << qint64 { 31872 };
}

void TestSequenceLayers::parameters()
{
    QFETCH(QList<qint64>, input);
    QFETCH(QString, dtype);
    QFETCH(QString, layerJson);
    QFETCH(qint64, params);
    const Analysis a = analyze(
        sequenceNetwork(input, dtype, QLatin1Char('[') + layerJson + QLatin1Char(']')), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, static_cast<std::uint64_t>(params));
    QCOMPARE(a.rows.size(), std::size_t { 1 });
    QCOMPARE(a.rows[0].params, static_cast<std::uint64_t>(params));
}

void TestSequenceLayers::parameterNamesMatchPyTorch()
{
    // Names and order of named_parameters() in torch 1.13.
    const LayerOutcome lstm
        = inferDirect("LSTM", { { "hidden_size", 16 }, { "num_layers", 2 }, { "bidirectional", true } },
            { TensorInfo { Shape { { 5, 8 } }, DType::Float32 } });
    const std::vector<std::string> lstmNames { "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
        "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse",
        "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_ih_l1_reverse",
        "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse" };
    QCOMPARE(parameterNames(lstm), lstmNames);
    // weight_ih_l0 (64, 8), weight_ih_l1 (64, 32): layer 1 reads both directions' outputs.
    QCOMPARE(lstm.params[0].elements.value(), std::uint64_t { 64 * 8 });
    QCOMPARE(lstm.params[8].elements.value(), std::uint64_t { 64 * 32 });
    QCOMPARE(lstm.output.shape, (Shape { { 5, 32 } }));

    const LayerOutcome gru = inferDirect("GRU",
        { { "hidden_size", 8 }, { "num_layers", 2 }, { "bidirectional", true }, { "bias", false } },
        { TensorInfo { Shape { { 5, 4 } }, DType::Float32 } });
    const std::vector<std::string> gruNames { "weight_ih_l0", "weight_hh_l0", "weight_ih_l0_reverse",
        "weight_hh_l0_reverse", "weight_ih_l1", "weight_hh_l1", "weight_ih_l1_reverse",
        "weight_hh_l1_reverse" };
    QCOMPARE(parameterNames(gru), gruNames);
    QCOMPARE(gru.params[4].elements.value(), std::uint64_t { 24 * 16 }); // weight_ih_l1 (24, 16)

    const LayerOutcome mha
        = inferDirect("MultiheadAttention", { { "num_heads", 4 }, { "add_bias_kv", true } },
            { TensorInfo { Shape { { 5, 16 } }, DType::Float32 } });
    const std::vector<std::string> mhaNames { "in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
        "out_proj.weight", "out_proj.bias" };
    QCOMPARE(parameterNames(mha), mhaNames);

    const LayerOutcome tel
        = inferDirect("TransformerEncoderLayer", { { "nhead", 4 }, { "dim_feedforward", 32 } },
            { TensorInfo { Shape { { 5, 16 } }, DType::Float32 } });
    const std::vector<std::string> telNames { "self_attn.in_proj_weight", "self_attn.in_proj_bias",
        "self_attn.out_proj.weight", "self_attn.out_proj.bias", "linear1.weight", "linear1.bias",
        "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias" };
    QCOMPARE(parameterNames(tel), telNames);
    // Autocast casts what F.linear uses, never the LayerNorm affine parameters.
    for (const auto& p : tel.params)
        QVERIFY2(p.castByAutocast == (p.name.rfind("norm", 0) != 0), p.name.c_str());
}

void TestSequenceLayers::savedBytes_data()
{
    QTest::addColumn<QList<qint64>>("input");
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("layersJson");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<qint64>("perSample");
    QTest::addColumn<qint64>("fixed");
    QTest::addColumn<QString>("outputDtype");

    // --- Embedding: keeps its indices, which are the network input (counted as input). A Linear
    // after it keeps the table rows it gathered: 64 x 128 x 4 = 32,768.
    QTest::newRow("Embedding keeps only the ids")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128}])"
        << "fp32" << qint64 { 0 } << qint64 { 0 } << "float32";
    QTest::newRow("Embedding + Linear")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128},{"type":"Linear","out_features":10}])"
        << "fp32" << qint64 { 32768 } << qint64 { 0 } << "float32";
    // Not on autocast's lists: the output is the float32 table's; pure bf16 gives bf16.
    QTest::newRow("Embedding under autocast stays float32")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128}])"
        << "amp-fp16" << qint64 { 0 } << qint64 { 0 } << "float32";
    QTest::newRow("Embedding pure bf16")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128}])"
        << "bf16" << qint64 { 0 } << qint64 { 0 } << "bfloat16";

    // --- PositionalEmbedding: the add keeps nothing; the lookup keeps T = 128 int64 position ids,
    // batch-independent: 128 x 8 = 1,024 fixed bytes.
    QTest::newRow("PositionalEmbedding keeps position ids once")
        << QList<qint64> { 128 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":256},{"type":"PositionalEmbedding","num_embeddings":128}])"
        << "fp32" << qint64 { 0 } << qint64 { 1024 } << "float32";
    // A half input plus the float32 table promotes to float32 under autocast.
    QTest::newRow("PositionalEmbedding promotes under autocast")
        << QList<qint64> { 16, 8 } << "float32"
        << R"([{"type":"Linear","out_features":32},{"type":"PositionalEmbedding","num_embeddings":20}])"
        << "amp-fp16" << qint64 { 16 * 8 * 2 } << qint64 { 16 * 8 } << "float32";

    // --- MultiheadAttention, T = 10, E = 16, h = 4 (head_dim 4), on the network input.
    // need_weights=True, fp32: in-projection buffer 3TE = 480, q scaled TE = 160, probabilities
    // hT^2 = 400, heads merged for out_proj TE = 160: 1,200 elements x 4 = 4,800.
    // (torch 1.13 keeps 4TE + hT^2 = 4,160 here, measured: its _in_projection_packed chunks and
    // copies q, k, v separately, so q's copy is freed; 2.x's one contiguous [3, T, B, E] buffer
    // stays alive whole through the k and v views.)
    QTest::newRow("MHA need_weights fp32") << QList<qint64> { 10, 16 } << "float32"
                                           << R"([{"type":"MultiheadAttention","num_heads":4}])"
                                           << "fp32" << qint64 { 4800 } << qint64 { 0 } << "float32";
    // dropout 0.1 adds a bool mask hT^2 = 400 and the dropped probabilities hT^2 x 4 = 1,600.
    QTest::newRow("MHA need_weights dropout fp32")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"MultiheadAttention","num_heads":4,"dropout":0.1}])"
        << "fp32" << qint64 { 4800 + 400 + 1600 } << qint64 { 0 } << "float32";
    // Autocast fp16: half copy of the fp32 input TE x 2 = 320, in-projection 3TE x 2 = 960, q
    // scaled 320, softmax in float32 hT^2 x 4 = 1,600, its half copy for bmm hT^2 x 2 = 800, heads
    // merged 320: 4,320.
    QTest::newRow("MHA need_weights amp-fp16") << QList<qint64> { 10, 16 } << "float32"
                                               << R"([{"type":"MultiheadAttention","num_heads":4}])"
                                               << "amp-fp16" << qint64 { 4320 } << qint64 { 0 } << "float16";
    // Pure fp16: every tensor of the fp32 case at 2 bytes: 2,400.
    QTest::newRow("MHA need_weights fp16") << QList<qint64> { 10, 16 } << "float32"
                                           << R"([{"type":"MultiheadAttention","num_heads":4}])"
                                           << "fp16" << qint64 { 2400 } << qint64 { 0 } << "float16";
    // add_bias_kv + add_zero_attn: S = T + 2 = 12; k and v become new S x E buffers (the
    // in-projection buffer is then not kept): q scaled 160 + k 192 + probabilities h T S 480 + v
    // 192 + merged 160 = 1,184 x 4 = 4,736.
    QTest::newRow("MHA bias_kv zero_attn fp32")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"MultiheadAttention","num_heads":4,"add_bias_kv":true,"add_zero_attn":true}])"
        << "fp32" << qint64 { 4736 } << qint64 { 0 } << "float32";
    // need_weights=False, fp32 -> memory-efficient SDPA: in-projection 3TE 480, SDPA output TE 160,
    // merged TE 160 (800 x 4 = 3,200) + logsumexp h x ceil(T/32)*32 = 4 x 32 floats = 512: 3,712.
    QTest::newRow("MHA SDPA fp32") << QList<qint64> { 10, 16 } << "float32"
                                   << R"([{"type":"MultiheadAttention","num_heads":4,"need_weights":false}])"
                                   << "fp32" << qint64 { 3712 } << qint64 { 0 } << "float32";
    // need_weights=False under bf16 autocast -> flash, T = 64, E = 64, h = 4: input copy TE x 2 =
    // 8,192, in-projection 3TE x 2 = 24,576, SDPA output 8,192, logsumexp h T x 4 = 1,024, merged
    // 8,192: 50,176. Dropout in SDPA keeps no mask (Philox), so dropout 0.1 changes nothing.
    QTest::newRow("MHA SDPA amp-bf16 dropout")
        << QList<qint64> { 64, 64 } << "float32"
        << R"([{"type":"MultiheadAttention","num_heads":4,"need_weights":false,"dropout":0.1}])"
        << "amp-bf16" << qint64 { 50176 } << qint64 { 0 } << "bfloat16";

    // --- TransformerEncoderLayer, T = 10, d = 16, h = 4, F = 32, dropout 0.1, on the network input.
    // torch 1.13 (CPU; its attention is the math path) confirms everything outside self-attention's
    // own tensors: 5,280 bytes per sample for post-norm ReLU, post-norm GELU and pre-norm (its float
    // dropout noise counted at CUDA's 1 byte per element), 3,360 with dropout 0; here 8,992 - 3,712
    // and 7,072 - 3,712.
    // fp32 post-norm: attention (SDPA, memory-efficient) 3,712 as above; dropout1 mask TE = 160;
    // x + attn kept by norm1 TE x 4 = 640; norm1 mean+rstd 2T x 4 = 80; norm1 output kept by
    // linear1 640; relu output TF x 4 = 1,280; dropout mask TF = 320; its output kept by linear2
    // 1,280; dropout2 mask 160; n1 + ff kept by norm2 640; norm2 stats 80. Sum 8,992
    // = 34TE + 9TF + 16T + 4h ceil(T/32)*32.
    QTest::newRow("TEL post-norm relu fp32")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32}])"
        << "fp32" << qint64 { 8992 } << qint64 { 0 } << "float32";
    // GELU keeps linear1's output instead of its own: the same size.
    QTest::newRow("TEL post-norm gelu fp32")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32,"activation":"gelu"}])"
        << "fp32" << qint64 { 8992 } << qint64 { 0 } << "float32";
    // dropout 0: no masks and the dropouts return their input: 3,712 + 640 + 80 + 640 + 1,280 +
    // 640 + 80 = 7,072.
    QTest::newRow("TEL post-norm no dropout fp32")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32,"dropout":0.0}])"
        << "fp32" << qint64 { 7072 } << qint64 { 0 } << "float32";
    // Pre-norm fp32: norm1 keeps x (the network input: free) + stats 80; norm1 output kept by
    // in_proj 640; attention 3,712; mask1 160; x + attn kept by norm2 640 + stats 80; norm2 output
    // 640; relu 1,280; mask 320; dropout output 1,280; mask2 160; the final add keeps nothing:
    // 8,992 again (the post-norm layer's kept n1 + ff is here the free input).
    QTest::newRow("TEL pre-norm fp32")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32,"norm_first":true}])"
        << "fp32" << qint64 { 8992 } << qint64 { 0 } << "float32";
    // Autocast fp16 post-norm: input half copy 320; in-projection 960; SDPA output 320; logsumexp
    // (flash) h T x 4 = 160; merged 320; mask1 160; x(fp32) + attn(half) -> fp32 640 + stats 80;
    // norm1's fp32 output gets a half copy for linear1 320; relu (half) 640; mask 320; dropout
    // output 640; mask2 160; n1(fp32) + ff(half) -> fp32 640 + stats 80. Sum 5,760; output float32.
    QTest::newRow("TEL post-norm amp-fp16")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32}])"
        << "amp-fp16" << qint64 { 5760 } << qint64 { 0 } << "float32";
    // Autocast fp16 pre-norm: stats 80; half copy of norm1's output 320; attention 960 + 320 + 160 +
    // 320; mask1 160; x + attn (fp32) 640 + stats 80; half copy of norm2's output 320; relu 640; mask
    // 320; dropout output 640; mask2 160; the output (fp32 + half -> fp32) is not kept. Sum 5,120.
    QTest::newRow("TEL pre-norm amp-fp16")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32,"norm_first":true}])"
        << "amp-fp16" << qint64 { 5120 } << qint64 { 0 } << "float32";
    // Pure bf16 post-norm: half everywhere but the fp32 LayerNorm statistics and logsumexp and the
    // bool masks: 960 + 320 + 160 + 320 + 160 + 320 + 80 + 320 + 640 + 320 + 640 + 160 + 320 + 80
    // = 4,800.
    QTest::newRow("TEL post-norm bf16")
        << QList<qint64> { 10, 16 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32}])"
        << "bf16" << qint64 { 4800 } << qint64 { 0 } << "bfloat16";
    // BERT-base layer, T = 512, fp32: 34TE + 9TF + 16T + 4h*512 = 13,369,344 + 14,155,776 + 8,192
    // + 24,576 = 27,557,888.
    QTest::newRow("TEL(768, 12, 3072) T=512 fp32")
        << QList<qint64> { 512, 768 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":12,"dim_feedforward":3072}])"
        << "fp32" << qint64 { 27557888 } << qint64 { 0 } << "float32";

    // --- LSTM / GRU (cuDNN). Kept: input, output, h_0 (and c_0), reserve T D H (6L - 1) for LSTM,
    // T D H (7L - 1) for GRU, in the RNN's dtype, plus 256 bytes per call (fixed: measured on an H100,
    // tests/data/onnx/random/rnn_cuda_h100.json, where every reserve is its per-sample bytes x B + 256).
    // Embedding(5000, 128) -> LSTM(256, 2 layers), T = 64, fp32: embedding output kept by the LSTM
    // 64 x 128 x 4 = 32,768; output 64 x 256 x 4 = 65,536; h_0 and c_0 L D H x 4 = 2,048 each;
    // reserve 64 x 256 x 11 x 4 = 720,896. Sum 823,296.
    QTest::newRow("Embedding + LSTM fp32")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128},{"type":"LSTM","hidden_size":256,"num_layers":2,"batch_first":true}])"
        << "fp32" << qint64 { 823296 } << qint64 { 256 } << "float32";
    // A Linear head on that output. batch_first: the output is cuDNN's [T, B, H] transposed, and
    // at::linear folds a non-contiguous 3-D input with reshape, a contiguous copy that mm keeps for
    // the weight gradient: + 64 x 256 x 4 = 65,536 (torch 1.13 measured the same copy,
    // tests/reference lstm_lm). Without batch_first the fold is a view of the output the LSTM keeps.
    const char* lstm
        = R"({"type":"Embedding","num_embeddings":5000,"embedding_dim":128},{"type":"LSTM","hidden_size":256,"num_layers":2)";
    QTest::newRow("batch_first LSTM + Linear copies")
        << QList<qint64> { 64 } << "int64"
        << QStringLiteral(R"([%1,"batch_first":true},{"type":"Linear","out_features":10}])")
               .arg(QLatin1String(lstm))
        << "fp32" << qint64 { 823296 + 65536 } << qint64 { 256 } << "float32";
    QTest::newRow("LSTM + Linear shares")
        << QList<qint64> { 64 } << "int64"
        << QStringLiteral(R"([%1},{"type":"Linear","out_features":10}])").arg(QLatin1String(lstm)) << "fp32"
        << qint64 { 823296 } << qint64 { 256 } << "float32";
    // Dropout keeps the layout (and a 1-byte mask, 64 x 256 = 16,384); the Linear still copies.
    QTest::newRow("batch_first LSTM + Dropout + Linear copies")
        << QList<qint64> { 64 } << "int64"
        << QStringLiteral(
               R"([%1,"batch_first":true},{"type":"Dropout","p":0.1},{"type":"Linear","out_features":10}])")
               .arg(QLatin1String(lstm))
        << "fp32" << qint64 { 823296 + 16384 + 65536 } << qint64 { 256 } << "float32";
    // Flatten merging T and H of the transposed view cannot be a view: it copies, and the Linear keeps
    // that copy (65,536); of a contiguous output it is a view, and the Linear keeps the LSTM's output.
    QTest::newRow("batch_first LSTM + Flatten + Linear")
        << QList<qint64> { 64 } << "int64"
        << QStringLiteral(
               R"([%1,"batch_first":true},{"type":"Flatten"},{"type":"Linear","out_features":10}])")
               .arg(QLatin1String(lstm))
        << "fp32" << qint64 { 823296 + 65536 } << qint64 { 256 } << "float32";
    QTest::newRow("LSTM + Flatten + Linear")
        << QList<qint64> { 64 } << "int64"
        << QStringLiteral(R"([%1},{"type":"Flatten"},{"type":"Linear","out_features":10}])")
               .arg(QLatin1String(lstm))
        << "fp32" << qint64 { 823296 } << qint64 { 256 } << "float32";
    // The same under autocast: the fp32 embedding output gets an fp16 copy 16,384; output 32,768;
    // h_0, c_0 1,024 each; reserve 360,448. Sum 411,648.
    QTest::newRow("Embedding + LSTM amp-fp16")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128},{"type":"LSTM","hidden_size":256,"num_layers":2}])"
        << "amp-fp16" << qint64 { 411648 } << qint64 { 256 } << "float16";
    // bf16 autocast: cuDNN RNNs still run in float16 (AutocastRNN.cpp casts to kHalf).
    QTest::newRow("Embedding + LSTM amp-bf16 runs in fp16")
        << QList<qint64> { 64 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":5000,"embedding_dim":128},{"type":"LSTM","hidden_size":256,"num_layers":2}])"
        << "amp-bf16" << qint64 { 411648 } << qint64 { 256 } << "float16";
    // LSTM(256, 512, 2 layers, bidirectional) on the network input, T = 100: output 100 x 1024 x 4
    // = 409,600; h_0, c_0 2 x 2 x 512 x 4 = 8,192 each; reserve 100 x 2 x 512 x 11 x 4 =
    // 4,505,600. Sum 4,931,584.
    QTest::newRow("LSTM bidirectional fp32")
        << QList<qint64> { 100, 256 } << "float32"
        << R"([{"type":"LSTM","hidden_size":512,"num_layers":2,"bidirectional":true}])"
        << "fp32" << qint64 { 4931584 } << qint64 { 256 } << "float32";
    // dropout 0.2 between the two layers: in cuDNN's reserve, one bit per element of layer 1's input
    // [T, D H] for each of the D directions reading it, (L - 1) T D^2 H / 8 = 100 x 4 x 512 / 8 = 25,600
    // (the rule measured on an H100, tests/data/onnx/random/rnn_cuda_h100.json). Fixed: the reserve's
    // 256 bytes and cuDNN's dropout state, which PyTorch's get_dropout_state creates for a call with
    // dropout and _cudnn_rnn saves: 6,488,064 bytes on the H100 (the uint8 tensor of that size every run
    // after the first with dropout saved there).
    QTest::newRow("LSTM bidirectional dropout fp32")
        << QList<qint64> { 100, 256 } << "float32"
        << R"([{"type":"LSTM","hidden_size":512,"num_layers":2,"bidirectional":true,"dropout":0.2}])"
        << "fp32" << qint64 { 4931584 + 25600 } << qint64 { 256 + 6488064 } << "float32";
    // One layer with dropout: cuDNN applies no dropout (no mask bits), but get_dropout_state still makes
    // the state (train && dropout_p > 0), and _cudnn_rnn saves it.
    QTest::newRow("GRU 1 layer dropout fp32")
        << QList<qint64> { 8, 4 } << "float32"
        << R"([{"type":"GRU","hidden_size":16,"dropout":0.5}])"
        << "fp32" << qint64 { 8 * 16 * 4 + 16 * 4 + 8 * 16 * 6 * 4 } << qint64 { 256 + 6488064 } << "float32";
    // GRU(123, 320, 4 layers), T = 100: output 128,000; h_0 4 x 320 x 4 = 5,120; reserve
    // 100 x 320 x 27 x 4 = 3,456,000. Sum 3,589,120.
    QTest::newRow("GRU 4 layers fp32") << QList<qint64> { 100, 123 } << "float32"
                                       << R"([{"type":"GRU","hidden_size":320,"num_layers":4}])"
                                       << "fp32" << qint64 { 3589120 } << qint64 { 256 } << "float32";
    // Pure fp16 GRU(16, 1 layer), T = 8, on the (converted) network input: output 8 x 16 x 2 = 256;
    // h_0 32; reserve 8 x 16 x 6 x 2 = 1,536. Sum 1,824.
    QTest::newRow("GRU fp16") << QList<qint64> { 8, 4 } << "float32"
                              << R"([{"type":"GRU","hidden_size":16}])"
                              << "fp16" << qint64 { 1824 } << qint64 { 256 } << "float16";
}

void TestSequenceLayers::savedBytes()
{
    QFETCH(QList<qint64>, input);
    QFETCH(QString, dtype);
    QFETCH(QString, layersJson);
    QFETCH(QString, precision);
    QFETCH(qint64, perSample);
    QFETCH(qint64, fixed);
    QFETCH(QString, outputDtype);
    const Analysis a
        = analyze(sequenceNetwork(input, dtype, layersJson), *parsePrecision(precision.toStdString()));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, static_cast<std::uint64_t>(perSample));
    QCOMPARE(a.activationBytesFixed, static_cast<std::uint64_t>(fixed));
    QCOMPARE(QString::fromUtf8(dtypeName(a.output.dtype)), outputDtype);
}

void TestSequenceLayers::mhaKeepsProbabilitiesOnlyWithWeights()
{
    // torch 1.13 confirms the explicit path keeps SoftmaxBackward0.result (B x h x T x T); 2.x's
    // SDPA keeps a float32 logsumexp instead.
    const std::vector<TensorInfo> in { TensorInfo { Shape { { 10, 16 } }, DType::Float32 } };
    const LayerOutcome weights = inferDirect("MultiheadAttention", { { "num_heads", 4 } }, in);
    QVERIFY(hasSaved(weights, "attention probabilities"));
    QVERIFY(!hasSaved(weights, "logsumexp"));
    const LayerOutcome fused
        = inferDirect("MultiheadAttention", { { "num_heads", 4 }, { "need_weights", false } }, in);
    QVERIFY(!hasSaved(fused, "attention probabilities"));
    QVERIFY(hasSaved(fused, "logsumexp"));
    // The probabilities are h x T x T = 400 elements per sample.
    const auto probs = std::find_if(weights.saved.begin(), weights.saved.end(),
        [](const auto& s) { return s.label == "attention probabilities"; });
    QVERIFY(probs != weights.saved.end());
    QCOMPARE(probs->perSampleElements.value(), std::uint64_t { 400 });
    // The input is kept by the in-projection and shared, not copied, in fp32.
    QCOMPARE(weights.saved.front().source, SavedTensor::Source::Input);
}

void TestSequenceLayers::autocastWeightCopies()
{
    // Under autocast each weight F.linear / cuDNN uses gets a cached half copy (2 bytes per element).
    const auto copies = [](const QString& layersJson, const QList<qint64>& input) {
        return analyze(sequenceNetwork(input, QStringLiteral("float32"), layersJson), Precision::AmpFp16)
            .autocastWeightCopyBytes;
    };
    // MHA(16, 4): in_proj 768 + 48, out_proj 256 + 16 = 1,088 elements.
    QCOMPARE(copies(QStringLiteral(R"([{"type":"MultiheadAttention","num_heads":4}])"), { 10, 16 }),
        std::uint64_t { 1088 * 2 });
    // TEL(16, 4, 32): attention 1,088 + linear1 512 + 32 + linear2 512 + 16 = 2,160; the LayerNorm
    // parameters run in float32 and are not copied.
    QCOMPARE(copies(QStringLiteral(R"([{"type":"TransformerEncoderLayer","nhead":4,"dim_feedforward":32}])"),
                 { 10, 16 }),
        std::uint64_t { 2160 * 2 });
    // LSTM(128, 256, 2): every flat weight, 921,600 elements, copied to a float16 flat buffer.
    QCOMPARE(copies(QStringLiteral(R"([{"type":"LSTM","hidden_size":256,"num_layers":2}])"), { 64, 128 }),
        std::uint64_t { 921600 * 2 });
    // MHA's bias_k / bias_v enter through cat (autocast promotes), not copied: still 1,088.
    QCOMPARE(copies(QStringLiteral(R"([{"type":"MultiheadAttention","num_heads":4,"add_bias_kv":true}])"),
                 { 10, 16 }),
        std::uint64_t { 1088 * 2 });
}

void TestSequenceLayers::lstmReserveMatchesCudnnReport()
{
    // pytorch/pytorch#2895: cuDNN reported a training reserve of 736,000,000 bytes for an LSTM and
    // 864,000,000 for a GRU of 4 layers, input 123, hidden 320 (parameter counts 3,034,880 and
    // 2,276,160 plus a 3,210-parameter Linear(320, 10) head pin those shapes), fp32. With
    // T x B = 25,000 (e.g. T = 500, B = 50) our per-sample reserve times B must give exactly that.
    // The reserve is the row's bytes minus the output (T H x 4 = 640,000) and h_0 (+ c_0) (L H x 4 =
    // 5,120 each).
    const QList<qint64> input { 500, 123 };
    const Analysis lstm
        = analyze(sequenceNetwork(input, QStringLiteral("float32"),
                      QStringLiteral(R"([{"type":"LSTM","hidden_size":320,"num_layers":4}])")),
            Precision::Fp32);
    const Analysis gru = analyze(sequenceNetwork(input, QStringLiteral("float32"),
                                     QStringLiteral(R"([{"type":"GRU","hidden_size":320,"num_layers":4}])")),
        Precision::Fp32);
    QVERIFY(lstm.valid() && gru.valid());
    const std::uint64_t lstmReserve = lstm.rows[0].activationBytesPerSample - 640000 - 2 * 5120;
    const std::uint64_t gruReserve = gru.rows[0].activationBytesPerSample - 640000 - 5120;
    QCOMPARE(lstmReserve * 50, std::uint64_t { 736000000 });
    QCOMPARE(gruReserve * 50, std::uint64_t { 864000000 });
}

void TestSequenceLayers::transformerLanguageModel()
{
    // Token embedding 5000 x 256, positions for T = 128, 4 pre-norm GELU encoder layers (4 heads,
    // F = 1024, dropout 0.1), final LayerNorm, Linear head, cross-entropy. torch 1.13 counts
    // 5,757,320 parameters for this model.
    Network net = network({ 128 },
        { layer("Embedding", { { "num_embeddings", 5000 }, { "embedding_dim", 256 } }, "tok"),
            layer("PositionalEmbedding", { { "num_embeddings", 128 } }, "pos"),
            repeat("encoder.layers", 4,
                { layer("TransformerEncoderLayer",
                    { { "nhead", 4 }, { "dim_feedforward", 1024 }, { "activation", "gelu" },
                        { "norm_first", true }, { "batch_first", true }, { "is_causal", true } }) }),
            layer("LayerNorm", json::object(), "norm"),
            layer("Linear", { { "out_features", 5000 } }, "head") },
        Loss::CrossEntropy, DType::Int64);
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 5757320 });
    // Per encoder layer (pre-norm, fp32), T = 128, E = 256, F = 1024, h = 4: its input kept by
    // norm1 4TE, two LayerNorms' stats 16T, norm outputs 2 x 4TE, attention 20TE + 4h x 128,
    // residual 4TE, masks 2TE + TF, GELU input 4TF, dropout output 4TF:
    // 38TE + 9TF + 16T + 16h T = 1,245,184 + 1,179,648 + 2,048 + 2,048 = 2,428,928; x 4 layers =
    // 9,715,712. Final LayerNorm keeps the last layer's output 131,072 + stats 1,024; the head keeps
    // the norm's output 131,072; cross-entropy keeps log_softmax 128 x 5000 x 4 = 2,560,000.
    // Total 12,538,880; the 128 position ids are the only fixed bytes.
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 12538880 });
    QCOMPARE(a.activationBytesFixed, std::uint64_t { 1024 });
    QCOMPARE(a.lossActivationBytesPerSample, std::uint64_t { 2560000 });
}

void TestSequenceLayers::errors_data()
{
    QTest::addColumn<QList<qint64>>("input");
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("layersJson");
    QTest::addColumn<QString>("message");
    QTest::newRow("MHA heads do not divide E") << QList<qint64> { 10, 100 } << "float32"
                                               << R"([{"type":"MultiheadAttention","num_heads":3}])"
                                               << "embed_dim 100 is not divisible by num_heads 3";
    QTest::newRow("MHA embed_dim mismatch")
        << QList<qint64> { 10, 64 } << "float32"
        << R"([{"type":"MultiheadAttention","embed_dim":32,"num_heads":4}])"
        << "embed_dim is 32 but the input has 64 features";
    QTest::newRow("MHA kdim") << QList<qint64> { 10, 64 } << "float32"
                              << R"([{"type":"MultiheadAttention","num_heads":4,"kdim":32}])"
                              << "kdim 32 differs from embed_dim 64";
    // h T^2 = 4 x (4e9)^2 elements does not fit 64 bits: an error, never a wrapped number.
    QTest::newRow("MHA probabilities overflow") << QList<qint64> { 4000000000, 16 } << "float32"
                                                << R"([{"type":"MultiheadAttention","num_heads":4}])"
                                                << "overflow 64-bit byte counts";
    QTest::newRow("MHA rank") << QList<qint64> { 64 } << "float32"
                              << R"([{"type":"MultiheadAttention","num_heads":4}])"
                              << "[T, E] (sequence, embedding)";
    QTest::newRow("TEL d_model mismatch") << QList<qint64> { 10, 64 } << "float32"
                                          << R"([{"type":"TransformerEncoderLayer","d_model":512,"nhead":8}])"
                                          << "d_model is 512 but the input has 64 features";
    QTest::newRow("TEL nhead") << QList<qint64> { 10, 64 } << "float32"
                               << R"([{"type":"TransformerEncoderLayer","nhead":5}])"
                               << "d_model 64 is not divisible by nhead 5";
    QTest::newRow("TEL activation")
        << QList<qint64> { 10, 64 } << "float32"
        << R"([{"type":"TransformerEncoderLayer","nhead":4,"activation":"swish"}])"
        << "activation";
    QTest::newRow("Embedding float input")
        << QList<qint64> { 10 } << "float32"
        << R"([{"type":"Embedding","num_embeddings":100,"embedding_dim":8}])"
        << "needs integer token ids but gets float32 values; set the network input's dtype to int64";
    QTest::newRow("Embedding padding_idx")
        << QList<qint64> { 10 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":100,"embedding_dim":8,"padding_idx":100}])"
        << "padding_idx 100 is outside the table's 100 rows";
    QTest::newRow("Positions too long")
        << QList<qint64> { 128 } << "int64"
        << R"([{"type":"Embedding","num_embeddings":100,"embedding_dim":8},{"type":"PositionalEmbedding","num_embeddings":64}])"
        << "the sequence has 128 positions but the table only 64 (num_embeddings)";
    QTest::newRow("Positions dim mismatch")
        << QList<qint64> { 16, 8 } << "float32"
        << R"([{"type":"PositionalEmbedding","num_embeddings":64,"embedding_dim":16}])"
        << "embedding_dim is 16 but the input has 8 features";
    QTest::newRow("Positions on ids") << QList<qint64> { 16 } << "int64"
                                      << R"([{"type":"PositionalEmbedding","num_embeddings":64}])"
                                      << "needs a floating-point input [T, D] but gets int64";
    QTest::newRow("LSTM proj_size") << QList<qint64> { 10, 8 } << "float32"
                                    << R"([{"type":"LSTM","hidden_size":16,"proj_size":4}])"
                                    << "proj_size 4 is not supported";
    QTest::newRow("GRU has no proj_size") << QList<qint64> { 10, 8 } << "float32"
                                          << R"([{"type":"GRU","hidden_size":16,"proj_size":4}])"
                                          << "proj_size";
    QTest::newRow("LSTM input_size mismatch") << QList<qint64> { 10, 8 } << "float32"
                                              << R"([{"type":"LSTM","input_size":10,"hidden_size":16}])"
                                              << "input_size is 10 but the input has 8 features";
    QTest::newRow("LSTM on ids") << QList<qint64> { 10 } << "int64"
                                 << R"([{"type":"LSTM","hidden_size":16}])"
                                 << "token ids go through an Embedding first";
}

void TestSequenceLayers::errors()
{
    QFETCH(QList<qint64>, input);
    QFETCH(QString, dtype);
    QFETCH(QString, layersJson);
    QFETCH(QString, message);
    const Analysis a = analyze(sequenceNetwork(input, dtype, layersJson), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(a.error->message.find(message.toStdString()) != std::string::npos, a.error->message.c_str());
}

QTEST_APPLESS_MAIN(TestSequenceLayers)
#include "tst_sequencelayers.moc"
