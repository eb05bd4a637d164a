// The command line as scripts use it, the real `headroom` binary run as a process (CliTestSupport.h):
// mistakes and hostile input (issues #16 and #17): the error table, each command's help,
// warnings on stderr, names and numbers that could break the output.
#include "CliTestSupport.h"
#include "CommandLine.h" // app/

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

class TestCliErrors : public QObject, private CliFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { writeInputFiles(); }
    void errors_data();
    void errors();

    void warningsGoToStderr();
    void missingModelOpensTheGuiOnAScreen_data();
    void missingModelOpensTheGuiOnAScreen();

    // Issues #16 and #17: help, mistakes and hostile input on the command line.
    void subcommandHelp_data();
    void subcommandHelp();
    void nonUtf8NamesAreEscaped_data();
    void nonUtf8NamesAreEscaped();
    void longNamesAreCut();
    void tinyNumbersAreInRange();
};

void TestCliErrors::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("ambiguous gpu") << QStringList {
        QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu"), QStringLiteral("1080")
    } << "GPU \"1080\" is ambiguous: it matches GeForce GTX 1080, GeForce GTX 1080 Ti";
    QTest::newRow("unknown gpu") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--gpu"), QStringLiteral("Voodoo") }
                                 << "unknown GPU \"Voodoo\"";
    QTest::newRow("bad batch") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--batch"), QStringLiteral("lots") }
                               << "--batch must be an integer from 1 to 2147483648, not \"lots\"";
    QTest::newRow("zero batch") << QStringList { QStringLiteral("max-batch"), QStringLiteral("@lenet"),
        QStringLiteral("--batch"), QStringLiteral("0") }
                                << "--batch must be an integer";
    QTest::newRow("bad optimizer") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--optimizer"), QStringLiteral("lion") }
                                   << "--optimizer must be one of sgd|momentum";
    QTest::newRow("bad precision") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--precision"), QStringLiteral("fp8") }
                                   << "--precision must be one of";
    QTest::newRow("calibration: not a size") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@lenet"), QStringLiteral("--calibration-fixed"), QStringLiteral("lots") }
                                             << "--calibration-fixed must be a number of bytes from 0 to "
                                                "1125899906842624 (1.00 PiB), with or without a unit";
    QTest::newRow("calibration: over 1 PiB") << QStringList { QStringLiteral("max-batch"),
        QStringLiteral("@lenet"), QStringLiteral("--calibration-fixed"), QStringLiteral("1025TiB") }
                                             << "--calibration-fixed must be a number of bytes";
    QTest::newRow("calibration: negative") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@lenet"), QStringLiteral("--calibration-fixed"), QStringLiteral("-1MiB") }
                                           << "--calibration-fixed must be a number of bytes";
    // (2^64 - 1) / 2^31 = 8,589,934,591 bytes per sample at most: 8 GiB is one byte too many.
    QTest::newRow("calibration: per sample overflows")
        << QStringList { QStringLiteral("compare"), QStringLiteral("@lenet"),
               QStringLiteral("--calibration-per-sample"), QStringLiteral("8GiB") }
        << "--calibration-per-sample must be a number of bytes "
           "from 0 to 8589934591";
    QTest::newRow("unknown option") << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"),
        QStringLiteral("--fast") } << "unknown option \"--fast\" (see headroom estimate --help)";
    QTest::newRow("missing file") << QStringList { QStringLiteral("estimate") }
                                  << "estimate needs a model file";
    QTest::newRow("no such file") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("/nonexistent/model.json") }
                                  << "/nonexistent/model.json: no such file";
    QTest::newRow("truncated file") << QStringList { QStringLiteral("estimate"), QStringLiteral("@broken") }
                                    << "broken.json: line 3, column 14:";
    QTest::newRow("option without value")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("--gpu") }
        << "--gpu needs a value";
    QTest::newRow("report without output")
        << QStringList { QStringLiteral("report"), QStringLiteral("@lenet") } << "report needs -o OUT.pdf";

    // Issue #7 options.
    const auto lenet = [](std::initializer_list<const char*> rest) {
        QStringList args { QStringLiteral("estimate"), QStringLiteral("@lenet") };
        for (const char* a : rest)
            args << QString::fromLatin1(a);
        return args;
    };
    QTest::newRow("unknown sharding")
        << lenet({ "--sharding", "zero4" })
        << "--sharding must be one of ddp|zero1|zero2|zero3|fsdp-shard-grad-op|fsdp-full-shard, not "
           "\"zero4\"";
    QTest::newRow("zero gpus") << lenet({ "--gpus", "0" })
                               << "--gpus must be an integer from 1 to 1048576, not \"0\"";
    QTest::newRow("gpus not a number") << lenet({ "--gpus", "four" }) << "--gpus must be an integer";
    QTest::newRow("tensor parallel not dividing")
        << lenet({ "--gpus", "4", "--tensor-parallel", "3" }) << "--tensor-parallel 3 must divide --gpus 4";
    QTest::newRow("tensor parallel above gpus")
        << lenet({ "--tensor-parallel", "2" }) << "--tensor-parallel 2 must divide --gpus 1";
    QTest::newRow("negative lora rank")
        << lenet({ "--lora-rank", "-1" }) << "--lora-rank must be an integer from 0 to 65536, not \"-1\"";
    QTest::newRow("qlora without rank") << lenet({ "--qlora" }) << "--qlora needs --lora-rank";
    QTest::newRow("lora targets without rank")
        << lenet({ "--lora-targets", "q_proj" }) << "--lora-targets needs --lora-rank";
    QTest::newRow("empty lora target")
        << lenet({ "--lora-rank", "8", "--lora-targets", "q_proj,,v_proj" })
        << "--lora-targets must be a comma-separated list of layer names, not \"q_proj,,v_proj\"";
    QTest::newRow("lora dropout 1") << lenet({ "--lora-rank", "8", "--lora-dropout", "1" })
                                    << "--lora-dropout must be a probability";
    QTest::newRow("zero sequence length")
        << lenet({ "--sequence-length", "0" }) << "--sequence-length must be an integer from 1 to 2147483648";
    QTest::newRow("absurd sequence length")
        << lenet({ "--sequence-length", "100000000000000" })
        << "--sequence-length must be an integer from 1 to 2147483648, not \"100000000000000\"";
    QTest::newRow("sequence length of a CNN") << lenet({ "--sequence-length", "128" }) << "sequence";
    QTest::newRow("sequence beyond the position table") << QStringList { QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json"),
        QStringLiteral("--sequence-length"),
        QStringLiteral("4096") } << "the sequence has 4096 positions but the table only 1024";
    QTest::newRow("sequence overflowing eager attention") << QStringList { QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"),
        QStringLiteral("--sequence-length"), QStringLiteral("2147483648"), QStringLiteral("--attention"),
        QStringLiteral("eager") } << "overflow";
    const auto gpt2 = [](std::initializer_list<const char*> rest) {
        QStringList args { QStringLiteral("estimate"),
            QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json") };
        for (const char* a : rest)
            args << QString::fromLatin1(a);
        return args;
    };
    // The parallel layout's errors name both settings and the option they come from (issue 37).
    QTest::newRow("stage layers that do not add up")
        << gpt2({ "--gpus", "4", "--pipeline-parallel", "4", "--stage-layers", "1,2,3,4" })
        << "--stage-layers: the layers per stage (1 + 2 + 3 + 4 = 10) must add up to GPT-2 small's 12 "
           "pipeline "
           "layers (the iterations of its Repeat blocks)";
    QTest::newRow("more stages than layers")
        << gpt2({ "--gpus", "16", "--pipeline-parallel", "16" })
        << "--pipeline-parallel: pipeline parallel 16 needs at least one "
           "layer per stage, but GPT-2 small has 12 pipeline layers";
    QTest::newRow("context parallel not dividing the sequence")
        << gpt2({ "--gpus", "2", "--context-parallel", "2", "--sequence-length", "1001" })
        << "--context-parallel: context parallel 2 must divide the sequence length 1,001";
    QTest::newRow("expert parallel without experts")
        << gpt2({ "--gpus", "2", "--expert-parallel", "2" })
        << "--expert-parallel: expert parallel 2 splits the experts of mixture-of-experts layers, but the "
           "model has none";
    QTest::newRow("interleaving a ragged step")
        << gpt2({ "--gpus", "4", "--pipeline-parallel", "4", "--virtual-stages", "2", "--accumulation-steps",
               "6" })
        << "--accumulation-steps: the interleaved schedule runs micro-batches in groups of the "
           "pipeline-parallel degree: accumulation steps (micro-batches per step) 6 must be a multiple of "
           "pipeline parallel 4";
    QTest::newRow("unknown schedule")
        << gpt2({ "--schedule", "foo" })
        << "--schedule must be one of gpipe|1f1b|interleaved|zero-bubble, not \"foo\"";
    QTest::newRow("stage layers not numbers") << gpt2(
        { "--stage-layers", "3,x" }) << "--stage-layers must be an integer from 0 to 65536, not \"x\"";
    QTest::newRow("unknown context kind") << gpt2({ "--context-parallel-kind", "x" })
                                          << "--context-parallel-kind must be ring or all-to-all, not \"x\"";
    QTest::newRow("unknown activation offload")
        << gpt2({ "--offload-activations", "x" })
        << "--offload-activations must be one of none|checkpoints|all, not \"x\"";
    QTest::newRow("zero virtual stages") << gpt2({ "--virtual-stages", "0" })
                                         << "--virtual-stages must be an integer from 1 to 65536, not \"0\"";
    QTest::newRow("absurd pipeline") << gpt2({ "--pipeline-parallel",
        "100000" }) << "--pipeline-parallel must be an integer from 1 to 65536, not \"100000\"";
    QTest::newRow("offloading checkpoints without checkpointing")
        << gpt2({ "--offload-activations", "checkpoints" })
        << "--offload-activations: activation offload \"checkpoints\" moves the block inputs that per-block "
           "checkpointing keeps to the CPU: it needs checkpointing \"per-block\", not \"none\"";
    QTest::newRow("unknown checkpointing")
        << lenet({ "--checkpointing", "all" })
        << "--checkpointing must be one of none|per-block|selective, not \"all\"";
    QTest::newRow("unknown attention")
        << lenet({ "--attention", "flash3" }) << "--attention must be sdpa or eager, not \"flash3\"";
    QTest::newRow("zero accumulation")
        << lenet({ "--accumulation-steps", "0" }) << "--accumulation-steps must be an integer from 1";
    QTest::newRow("steps x gpus too many") << lenet({ "--accumulation-steps", "1048576", "--gpus", "4096" })
                                           << "--accumulation-steps x --gpus must be at most 2147483648";
    QTest::newRow("zero utilization") << lenet({ "--utilization", "0" })
                                      << "--utilization must be a fraction of peak from 0.01 to 1, not \"0\"";
    QTest::newRow("vanishing utilization")
        << lenet({ "--utilization", "1e-300" }) << "--utilization must be a fraction of peak from 0.01 to 1";
    QTest::newRow("freeze unknown layer")
        << lenet({ "--freeze", "encoder" }) << "--freeze: no layer is named \"encoder\"";
    QTest::newRow("offload without zero")
        << lenet({ "--offload-optimizer" }) << "offloading the optimizer to the CPU needs DeepSpeed ZeRO";
    QTest::newRow("vanishing gpu memory")
        << lenet({ "--gpu-memory-gib", "1e-12" })
        << "--gpu-memory-gib must be a number of GiB from 0.25 to 4096, not \"1e-12\"";
    QTest::newRow("absurd gpu memory") << lenet({ "--gpu-memory-gib", "1e6" })
                                       << "--gpu-memory-gib must be a number of GiB from 0.25 to 4096";
    QTest::newRow("utilization above 1")
        << lenet({ "--utilization", "1.5" }) << "--utilization must be a fraction";
    QTest::newRow("max-batch validates too") << QStringList { QStringLiteral("max-batch"),
        QStringLiteral("@lenet"), QStringLiteral("--sharding"), QStringLiteral("zero") }
                                             << "--sharding must be one of";
    QTest::newRow("report validates too") << QStringList { QStringLiteral("report"), QStringLiteral("@lenet"),
        QStringLiteral("-o"), QStringLiteral("@out.pdf"), QStringLiteral("--gpus"), QStringLiteral("0") }
                                          << "--gpus must be an integer";
    QTest::newRow("truncated onnx") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@truncated.onnx") }
                                    << "truncated.onnx";
    QTest::newRow("onnx opset 99") << QStringList { QStringLiteral("estimate"),
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/opset99.onnx") }
                                   << "opset99.onnx";
    QTest::newRow("bad config.json") << QStringList { QStringLiteral("estimate"),
        QStringLiteral("@hf/config.json") }
                                     << "config.json";

    // Issue #17: no option takes a non-finite number (NaN converted to a byte count is undefined).
    QTest::newRow("overhead nan") << lenet({ "--overhead-mib", "nan" })
                                  << "--overhead-mib must be a number of MiB from 0 to 1048576, not \"nan\"";
    QTest::newRow("overhead inf") << lenet({ "--overhead-mib", "inf" })
                                  << "--overhead-mib must be a number of MiB";
    QTest::newRow("overhead 1e400") << lenet({ "--overhead-mib", "1e400" })
                                    << "--overhead-mib must be a number of MiB";
    QTest::newRow("gpu memory nan") << lenet({ "--gpu-memory-gib", "nan" })
                                    << "--gpu-memory-gib must be a number of GiB";
    QTest::newRow("gpu memory -inf") << lenet({ "--gpu-memory-gib", "-inf" })
                                     << "--gpu-memory-gib must be a number of GiB";
    QTest::newRow("inter-node bandwidth zero")
        << lenet({ "--inter-node-gbps", "0" })
        << "--inter-node-gbps must be a bandwidth in GB/s per GPU above 0 and at most 10000, not \"0\"";
    QTest::newRow("inter-node bandwidth negative")
        << lenet({ "--inter-node-gbps", "-50" }) << "--inter-node-gbps must be a bandwidth in GB/s";
    QTest::newRow("inter-node bandwidth garbage")
        << lenet({ "--inter-node-gbps", "fast" }) << "--inter-node-gbps must be a bandwidth in GB/s";
    QTest::newRow("inter-node bandwidth nan")
        << lenet({ "--inter-node-gbps", "nan" }) << "--inter-node-gbps must be a bandwidth in GB/s";
    QTest::newRow("inter-node bandwidth absurd")
        << lenet({ "--inter-node-gbps", "1e9" }) << "--inter-node-gbps must be a bandwidth in GB/s";
    QTest::newRow("gpus per node zero") << lenet({ "--gpus-per-node", "0" }) << "--gpus-per-node";
    QTest::newRow("utilization nan") << lenet({ "--utilization", "NaN" })
                                     << "--utilization must be a fraction of peak";
    QTest::newRow("utilization infinity")
        << lenet({ "--utilization", "infinity" }) << "--utilization must be a fraction";
    QTest::newRow("lora dropout nan")
        << lenet({ "--lora-rank", "4", "--lora-dropout", "nan" }) << "--lora-dropout must be a probability";
    QTest::newRow("hexadecimal overhead")
        << lenet({ "--overhead-mib", "0x10" }) << "--overhead-mib must be a number";
    QTest::newRow("gpu and custom memory")
        << lenet({ "--gpu", "RTX 4090", "--gpu-memory-gib", "24" })
        << "--gpu and --gpu-memory-gib both choose the GPU: give one of them";
    // Files the command line must refuse with a message, never a crash or a silently different model.
    QTest::newRow("duplicate key")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@duplicate_key") }
        << "duplicate_key.json: layers is given more than once; give each key once (the "
           "second is at line 4, column 2)";
    QTest::newRow("UTF-16 file") << QStringList { QStringLiteral("estimate"), QStringLiteral("@utf16") }
                                 << "utf16.json: the file is UTF-16 text; save it as UTF-8";
    QTest::newRow("random bytes")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@random") }
        << "random.json: read as a Headroom model file (its name does not end in .onnx or "
           "config.json), but it cannot be read as JSON: line 1, column 1: not UTF-8 text: "
           "byte 0 is 0xEF";
    QTest::newRow("shape overflow")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@overflow") }
        // Each layer named by its number (its position counted from 1, as every view numbers it), its
        // name or, unnamed, its type, and its JSON path in the file.
        << "layer 1 (Conv2d, layers[0]): its output [6, 4294967322, 4294967322] overflows 64-bit "
           "sizes";
    QTest::newRow("tied transposed weights")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@tied_transposed") }
        << "layer 2 (layers[1].tied_to): this layer's weight is [8, 4] but \"a\"'s is [4, 8]";
    QTest::newRow("name of a Repeat's layer")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@repeat_name_clash") }
        << "layer 2 (layers[1]): its name \"b.0.r\" is already the name of layer 1.1 (layers[0].layers[0])";
    QTest::newRow("name of an unnamed layer")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@index_name_clash") }
        // The first layer's automatic name is "0" (counted from 0, as PyTorch names nn.Sequential's
        // children), its number 1.
        << "layer 2 (layers[1]): its name \"0\" is already the name of layer 1 (layers[0])";
    QTest::newRow("endless file") << QStringList { QStringLiteral("estimate"), QStringLiteral("/dev/zero") }
                                  << "/dev/zero: holds more than the 64.00 MiB (67,108,864 bytes) allowed";
    // Issue #16: a first argument that is neither a command nor a file is an error, not the GUI.
    QTest::newRow("mistyped command")
        << QStringList { QStringLiteral("estmate"), QStringLiteral("@lenet") }
        << "\"estmate\" is neither a command nor an existing file; the commands are "
           "estimate, max-batch, plan, compare, report, measured, gpus, help (did you mean estimate?)";
    QTest::newRow("missing file without a command")
        << QStringList { QStringLiteral("/nonexistent/model.json") }
        << "\"/nonexistent/model.json\" is neither a command nor an existing file";
    QTest::newRow("folder without a command")
        << QStringList { QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests") }
        << "is a folder; give a model file to open, or a command";
    QTest::newRow("unknown first option")
        << QStringList { QStringLiteral("--fast") } << "unknown option \"--fast\"";
    QTest::newRow("help on no command") << QStringList { QStringLiteral("help"), QStringLiteral("estmate") }
                                        << "help: \"estmate\" is neither a command";
    // Issue #18: plan and compare.
    const auto plan = [&](std::initializer_list<const char*> rest) {
        QStringList args = lenet(rest);
        args.front() = QStringLiteral("plan");
        return args;
    };
    const auto compare = [&](std::initializer_list<const char*> rest) {
        QStringList args = lenet(rest);
        args.front() = QStringLiteral("compare");
        return args;
    };
    QTest::newRow("plan: unknown allow item")
        << plan({ "--allow", "lora,fast" })
        << "--allow: \"fast\" is not something plan may change; give precision, "
           "lora or 8bit-optimizer";
    QTest::newRow("plan: empty allow item")
        << plan({ "--allow", "lora," }) << "--allow must be a comma-separated list";
    QTest::newRow("plan: unknown gpu") << plan({ "--gpu", "Voodoo" }) << "unknown GPU \"Voodoo\"";
    QTest::newRow("plan: zero target") << plan({ "--target-batch", "0" })
                                       << "--target-batch must be an integer from 1 to 2147483648, not \"0\"";
    QTest::newRow("plan: negative step time")
        << plan({ "--max-step-seconds", "-1" }) << "--max-step-seconds must be a number of seconds above 0";
    QTest::newRow("plan: nan step time")
        << plan({ "--max-step-seconds", "nan" }) << "--max-step-seconds must be a number";
    QTest::newRow("plan: batch") << plan({ "--batch",
        "8" }) << "plan chooses the micro-batch: give the goal with --target-batch instead of --batch";
    QTest::newRow("plan: gpus list") << plan({ "--gpus-list", "RTX 4090" })
                                     << "--gpus-list is an option of headroom compare, not of plan";
    QTest::newRow("estimate: allow") << lenet({ "--allow", "lora" })
                                     << "--allow is an option of headroom plan and report, not of estimate";
    QTest::newRow("estimate: target")
        << lenet({ "--target-batch", "64" })
        << "--target-batch is an option of headroom plan, compare and report, not of estimate";
    QTest::newRow("report: allow without include-plan")
        << QStringList { QStringLiteral("report"), QStringLiteral("@lenet"), QStringLiteral("-o"),
               QStringLiteral("@x.pdf"), QStringLiteral("--allow"), QStringLiteral("lora") }
        << "--allow on report is the goal of the planner's table: it needs --include-plan";
    QTest::newRow("estimate: include-plan")
        << lenet({ "--include-plan" }) << "--include-plan is an option of headroom report, not of estimate";
    QTest::newRow("compare: gpu")
        << compare({ "--gpu", "RTX 4090" })
        << "compare runs the set-up on every GPU of the catalogue: choose some with --gpus-list, not --gpu";
    QTest::newRow("compare: unknown gpu in list")
        << compare({ "--gpus-list", "RTX 4090,Voodoo" }) << "--gpus-list: unknown GPU \"Voodoo\"";
    QTest::newRow("compare: ambiguous gpu in list")
        << compare({ "--gpus-list", "1080" }) << "--gpus-list: GPU \"1080\" is ambiguous";
    QTest::newRow("plan: unestimable network")
        << QStringList { QStringLiteral("plan"), QStringLiteral("@unestimable") }
        << "cannot plan: layer 2 (Softmax, layers[1]): dim 5 is not a feature axis";
}

void TestCliErrors::errors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    for (auto& a : args) {
        if (a.startsWith(QLatin1Char('@')))
            a = m_dir.filePath(a.contains(QLatin1Char('.')) ? a.mid(1) : a.mid(1) + QStringLiteral(".json"));
    }
    const Run r = runHeadroom(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith(QStringLiteral("headroom: error: ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1); // one clear line
}

void TestCliErrors::warningsGoToStderr()
{
    // Five operators of this file have no Headroom layer: each is a GenericOp with a warning
    // (tests/core/tst_onnximport.cpp), printed to stderr by estimate, max-batch and report alike.
    const QString file = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/generic_ops.onnx");
    const QString pdf = m_dir.filePath(QStringLiteral("generic.pdf"));
    for (const QStringList& args :
        { QStringList { QStringLiteral("estimate"), file }, QStringList { QStringLiteral("max-batch"), file },
            QStringList { QStringLiteral("report"), file, QStringLiteral("-o"), pdf } }) {
        const Run r = runHeadroom(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY2(lines.front().startsWith(
                     QStringLiteral("headroom: warning: layer 'fancy': operator 'com.example::Fancy' "
                                    "has no Headroom layer")),
            qPrintable(lines.front()));
        for (const auto& line : lines)
            QVERIFY2(line.startsWith(QStringLiteral("headroom: warning: ")), qPrintable(line));
        QVERIFY(!r.out.contains(QStringLiteral("warning")));
    }
    const auto j = jsonOf({ file });
    QCOMPARE(j["warnings"].size(), std::size_t { 5 });
    QCOMPARE(j["warnings"][0]["layer"].get<std::string>(), std::string("fancy"));
    // A network without assumptions prints none.
    const Run clean = runHeadroom({ QStringLiteral("estimate"), m_lenet });
    QVERIFY(clean.err.isEmpty());
}

void TestCliErrors::subcommandHelp_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("usage");
    QTest::addColumn<bool>("planning"); // takes the set-up options (--sharding, --utilization, ...)
    const QString estimate = QStringLiteral("Usage: headroom estimate FILE [options] [--json]\n");
    QTest::newRow("estimate --help") << QStringList { QStringLiteral("estimate"), QStringLiteral("--help") }
                                     << estimate << true;
    QTest::newRow("estimate FILE -h")
        << QStringList { QStringLiteral("estimate"), QStringLiteral("@lenet"), QStringLiteral("-h") }
        << estimate << true;
    QTest::newRow("help estimate") << QStringList { QStringLiteral("help"), QStringLiteral("estimate") }
                                   << estimate << true;
    QTest::newRow("max-batch --help")
        << QStringList { QStringLiteral("max-batch"), QStringLiteral("--help") }
        << QStringLiteral("Usage: headroom max-batch FILE [options] [--json]\n") << true;
    QTest::newRow("report --help") << QStringList { QStringLiteral("report"), QStringLiteral("--help") }
                                   << QStringLiteral("Usage: headroom report FILE -o OUT.pdf [options]\n")
                                   << true;
    QTest::newRow("plan --help")
        << QStringList { QStringLiteral("plan"), QStringLiteral("--help") }
        << QStringLiteral("Usage: headroom plan FILE [--gpu NAME] [--gpus N] [--target-batch N]") << true;
    QTest::newRow("compare --help") << QStringList { QStringLiteral("compare"), QStringLiteral("--help") }
                                    << QStringLiteral("Usage: headroom compare FILE [options]") << true;
    QTest::newRow("gpus --help") << QStringList { QStringLiteral("gpus"), QStringLiteral("--help") }
                                 << QStringLiteral("Usage: headroom gpus [--json]\n") << false;
}

void TestCliErrors::subcommandHelp()
{
    QFETCH(QStringList, args);
    QFETCH(QString, usage);
    QFETCH(bool, planning);
    args.replaceInStrings(QStringLiteral("@lenet"), m_lenet);
    const Run r = runHeadroom(args);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QVERIFY2(r.out.startsWith(usage), qPrintable(r.out));
    for (const char* option : { "--sharding MODE", "--utilization U" })
        QCOMPARE(r.out.contains(QLatin1String(option)), planning);
    // Issue 25 item 14: plan chooses the batch and compare runs every GPU, so neither lists those
    // options (tst_clihelp checks every option of every command).
    const bool plan = args.front() == QLatin1String("plan");
    const bool compare = args.front() == QLatin1String("compare");
    QCOMPARE(r.out.contains(QLatin1String("--batch N")), planning && !plan);
    QCOMPARE(r.out.contains(QLatin1String("--gpu NAME")), planning && !compare);
}

void TestCliErrors::nonUtf8NamesAreEscaped_data()
{
    // A Hugging Face config is named after its file, or its folder when the file is config.json. A byte
    // 0xFF is not UTF-8: the name is shown escaped, "\xff", in the JSON and in the table alike.
    QTest::addColumn<QByteArray>("folder");
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("name");
    QTest::newRow("file name") << QByteArray() << QByteArray("llama\xff.json")
                               << QStringLiteral("llama\\xff");
    QTest::newRow("folder name") << QByteArray("folder\xff") << QByteArray("config.json")
                                 << QStringLiteral("folder\\xff");
}

void TestCliErrors::nonUtf8NamesAreEscaped()
{
    QFETCH(QByteArray, folder);
    QFETCH(QByteArray, file);
    QFETCH(QString, name);
    // QString cannot hold such a path: write it with byte-exact calls, and have printf spell it for headroom.
    const QByteArray base = QFile::encodeName(m_dir.path());
    const QByteArray dir = folder.isEmpty() ? base : base + '/' + folder;
    QVERIFY(folder.isEmpty() || ::mkdir(dir.constData(), 0755) == 0);
    QFile source(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray config = source.readAll();
    const std::string written = std::string(dir.constData()) + "/" + file.constData();
    std::ofstream(written, std::ios::binary).write(config.constData(), config.size());
    const auto cleanUp = qScopeGuard([&] { // QTemporaryDir cannot remove names QString cannot hold
        ::unlink(written.c_str());
        if (!folder.isEmpty())
            ::rmdir(dir.constData());
    });
    QByteArray printfPath = dir + '/' + file;
    const QString path = QString::fromLatin1(printfPath.replace("\xff", "\\377"));
    for (const bool json : { true, false }) {
        QProcess p;
        p.start(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"),
                QStringLiteral("exec \"$0\" estimate \"$(printf \"$1\")\" --sequence-length 8")
                    + (json ? QStringLiteral(" --json") : QString()),
                QStringLiteral(HEADROOM_BINARY), path });
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(err));
        const QByteArray out = p.readAllStandardOutput();
        if (json) {
            const auto j = nlohmann::json::parse(out.toStdString());
            QCOMPARE(QString::fromStdString(j["model"].get<std::string>()), name);
            QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t { 124439808 });
        } else {
            QVERIFY2(out.startsWith("Model            " + name.toUtf8() + " ("), out.left(200).constData());
        }
    }
}

void TestCliErrors::longNamesAreCut()
{
    // A 100,000-character GPU name is echoed as its first 64 characters, an ellipsis and its length.
    const QString name(100000, QLatin1Char('x'));
    const Run r = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--gpu"), name });
    QCOMPARE(r.exitCode, 2);
    const QString expected = QStringLiteral("headroom: error: unknown GPU \"") + QString(64, QLatin1Char('x'))
        + QStringLiteral("\u2026\" (100,000 characters); `headroom gpus` lists the known ones\n");
    QCOMPARE(r.err, expected);
    const Run freeze = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--freeze"), name });
    QCOMPARE(freeze.exitCode, 2);
    QVERIFY2(freeze.err.size() < 300, qPrintable(freeze.err.left(300)));
    QVERIFY2(freeze.err.contains(QStringLiteral("(100,000 characters)")), qPrintable(freeze.err.left(300)));
}

void TestCliErrors::tinyNumbersAreInRange()
{
    // 1e-320 MiB is within 0 to 1048576 (a subnormal double, 0.00000000001 bytes): accepted, and no overhead.
    const auto j = jsonOf({ m_lenet, QStringLiteral("--overhead-mib"), QStringLiteral("1e-320") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 0 });
    const auto below = jsonOf(
        { m_lenet, QStringLiteral("--overhead-mib"), QStringLiteral("1e-400") }); // below any double: 0
    QVERIFY(!below.is_null());
    QCOMPARE(below["bytes"]["overhead"].get<std::uint64_t>(), std::uint64_t { 0 });
}

void TestCliErrors::missingModelOpensTheGuiOnAScreen_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("display");
    QTest::addColumn<bool>("commandLine");
    const QString missing = QStringLiteral("/nonexistent/model.json");
    const QString lenet = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/lenet5.json");
    // Issue 35: "headroom missing.json" from a desktop (a file manager, a shortcut) opened no window and
    // wrote to a terminal nobody saw. On a screen the GUI opens and says the file is not there.
    QTest::newRow("missing model, screen") << QStringList { missing } << true << false;
    QTest::newRow("missing ONNX, no folder, screen")
        << QStringList { QStringLiteral("net.ONNX") } << true << false;
    QTest::newRow("missing model, no screen") << QStringList { missing } << false << true;
    // A bare word is a mistyped command, with or without a screen; a folder, an option, a command too.
    QTest::newRow("mistyped command, screen") << QStringList { QStringLiteral("estmate") } << true << true;
    QTest::newRow("folder, screen") << QStringList { QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests") }
                                    << true << true;
    QTest::newRow("missing model and more, screen")
        << QStringList { missing, QStringLiteral("--batch") } << true << true;
    QTest::newRow("command, screen") << QStringList { QStringLiteral("estimate"), missing } << true << true;
    QTest::newRow("existing model, no screen") << QStringList { lenet } << false << false;
    QTest::newRow("nothing, no screen") << QStringList {} << false << false;
}

void TestCliErrors::missingModelOpensTheGuiOnAScreen()
{
    QFETCH(QStringList, args);
    QFETCH(bool, display);
    QFETCH(bool, commandLine);
    std::vector<std::string> argv;
    for (const QString& a : args)
        argv.push_back(a.toStdString());
    QCOMPARE(headroom::cli::isCommandLineInvocation(argv, display), commandLine);
}

QTEST_GUILESS_MAIN(TestCliErrors)
#include "tst_clierrors.moc"
