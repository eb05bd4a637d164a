// Each command's --help lists exactly the options the command takes (issue 25, item 14): read from
// the help texts the binary prints and checked against what the same binary accepts, so the help and
// the parser cannot drift apart.
#include "RunHeadroom.h"

#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

namespace {

struct ListedOption
{
    QString name; ///< "--gpu", "-o"
    QString value; ///< "NAME"; empty for a flag
};

/// The options a help text lists, from its option lines ("  --gpu NAME   ...", "  -o, --output FILE  ...",
/// "  --[no-]qlora  ...": --qlora and --no-qlora).
QList<ListedOption> listedOptions(const QString& help)
{
    static const QRegularExpression line(
        QStringLiteral("^  (?:(-\\w), )?--(\\[no-\\])?([\\w-]+)(?: ([A-Z]+))?"),
        QRegularExpression::MultilineOption);
    QList<ListedOption> options;
    for (auto it = line.globalMatch(help); it.hasNext();) {
        const auto m = it.next();
        if (!m.captured(1).isEmpty())
            options.append({ m.captured(1), m.captured(4) });
        options.append({ QStringLiteral("--") + m.captured(3), m.captured(4) });
        if (!m.captured(2).isEmpty())
            options.append({ QStringLiteral("--no-") + m.captured(3), m.captured(4) });
    }
    return options;
}

/// A value each option accepts, so that only whether the command takes the option decides.
QString sampleValue(const QString& option, const QString& pdf)
{
    static const QMap<QString, QString> values { { QStringLiteral("--gpu"), QStringLiteral("RTX 4090") },
        { QStringLiteral("--gpu-memory-gib"), QStringLiteral("24") },
        { QStringLiteral("--optimizer"), QStringLiteral("sgd") },
        { QStringLiteral("--optimizer-impl"), QStringLiteral("foreach") },
        { QStringLiteral("--precision"), QStringLiteral("fp32") },
        { QStringLiteral("--batch"), QStringLiteral("2") },
        { QStringLiteral("--overhead-mib"), QStringLiteral("100") },
        { QStringLiteral("--calibration-fixed"), QStringLiteral("1MiB") },
        { QStringLiteral("--calibration-per-sample"), QStringLiteral("1024") },
        { QStringLiteral("--loss"), QStringLiteral("mse") },
        { QStringLiteral("--checkpointing"), QStringLiteral("none") },
        { QStringLiteral("--attention"), QStringLiteral("sdpa") },
        { QStringLiteral("--sequence-length"), QStringLiteral("8") },
        { QStringLiteral("--moe-imbalance"), QStringLiteral("1") },
        { QStringLiteral("--freeze"), QStringLiteral("fc1") },
        { QStringLiteral("--lora-rank"), QStringLiteral("4") },
        { QStringLiteral("--lora-targets"), QStringLiteral("fc1") },
        { QStringLiteral("--lora-dropout"), QStringLiteral("0") },
        { QStringLiteral("--accumulation-steps"), QStringLiteral("2") },
        { QStringLiteral("--gpus"), QStringLiteral("2") },
        { QStringLiteral("--sharding"), QStringLiteral("ddp") },
        { QStringLiteral("--tensor-parallel"), QStringLiteral("1") },
        { QStringLiteral("--pipeline-parallel"), QStringLiteral("1") },
        { QStringLiteral("--schedule"), QStringLiteral("1f1b") },
        { QStringLiteral("--virtual-stages"), QStringLiteral("1") },
        { QStringLiteral("--stage-layers"), QStringLiteral("4") },
        { QStringLiteral("--context-parallel"), QStringLiteral("1") },
        { QStringLiteral("--context-parallel-kind"), QStringLiteral("ring") },
        { QStringLiteral("--expert-parallel"), QStringLiteral("1") },
        { QStringLiteral("--expert-tensor-parallel"), QStringLiteral("1") },
        { QStringLiteral("--offload-activations"), QStringLiteral("none") },
        { QStringLiteral("--utilization"), QStringLiteral("0.5") },
        { QStringLiteral("--target-batch"), QStringLiteral("2") },
        { QStringLiteral("--global-batch"), QStringLiteral("8") },
        { QStringLiteral("--gpus-per-node"), QStringLiteral("8") },
        { QStringLiteral("--inter-node-gbps"), QStringLiteral("25") },
        { QStringLiteral("--max-step-seconds"), QStringLiteral("10") },
        { QStringLiteral("--allow"), QStringLiteral("lora") },
        { QStringLiteral("--gpus-list"), QStringLiteral("RTX 4090") },
        { QStringLiteral("--model"), QStringLiteral("/nonexistent/model.json") },
        { QStringLiteral("--measured"), QStringLiteral("/nonexistent/run.pickle") },
        { QStringLiteral("--run-batch"), QStringLiteral("2") },
        { QStringLiteral("--run-precision"), QStringLiteral("amp-bf16") } };
    if (option == QLatin1String("-o") || option == QLatin1String("--output"))
        return pdf;
    if (option == QLatin1String("--save-setup")) // never written: the model file does not exist
        return pdf + QStringLiteral(".json");
    return values.value(option);
}

} // namespace

class TestCliHelp : public QObject
{
    Q_OBJECT

private slots:
    void helpListsExactlyTheOptionsTaken_data();
    void helpListsExactlyTheOptionsTaken();
};

void TestCliHelp::helpListsExactlyTheOptionsTaken_data()
{
    QTest::addColumn<QString>("command");
    for (const char* command : { "estimate", "max-batch", "plan", "compare", "report", "measured", "gpus" })
        QTest::newRow(command) << QString::fromLatin1(command);
}

void TestCliHelp::helpListsExactlyTheOptionsTaken()
{
    QFETCH(QString, command);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pdf = dir.filePath(QStringLiteral("never.pdf"));
    const Run all = runHeadroom({ QStringLiteral("--help") });
    const Run own = runHeadroom({ command, QStringLiteral("--help") });
    QCOMPARE(own.exitCode, 0);
    const QList<ListedOption> every = listedOptions(all.out);
    QVERIFY2(every.size() > 30, qPrintable(all.out));
    // Each switch a model file's set-up can turn on is listed with its --no- form (docs/cli.md).
    for (const char* off : { "--no-qlora", "--no-sequence-parallel", "--no-offload-optimizer",
             "--no-8bit-optimizer", "--no-expandable-segments" })
        QVERIFY2(
            std::any_of(every.begin(), every.end(),
                [&](const ListedOption& o) { return o.name == QLatin1String(off) && o.value.isEmpty(); }),
            off);
    QStringList listed;
    for (const auto& option : listedOptions(own.out)) {
        // Every option a command's help lists is one `headroom --help` lists too, with the same value.
        const bool known = std::any_of(every.begin(), every.end(),
            [&](const ListedOption& o) { return o.name == option.name && o.value == option.value; });
        QVERIFY2(known, qPrintable(option.name + QStringLiteral(" is not in headroom --help")));
        listed << option.name;
    }
    QVERIFY2(!listed.isEmpty(), qPrintable(own.out));

    // The model file does not exist: an option the command takes fails only there (after every option
    // has been checked), one it refuses fails with a message naming the option and the command.
    for (const auto& option : every) {
        QStringList args { command };
        if (command != QLatin1String("gpus"))
            args << QStringLiteral("/nonexistent/model.json");
        args << option.name;
        if (!option.value.isEmpty()) {
            const QString value = sampleValue(option.name, pdf);
            QVERIFY2(!value.isEmpty(), qPrintable(QStringLiteral("no sample value for ") + option.name));
            args << value;
        }
        if (command == QLatin1String("report"))
            args << QStringLiteral("-o") << pdf
                 << QStringLiteral("--include-plan") // its required output, its goal
                 << QStringLiteral("--measured") << QStringLiteral("/nonexistent/run.pickle"); // the run
        if (command == QLatin1String("measured")) // the plan the set-up options describe
            args << QStringLiteral("--model") << QStringLiteral("/nonexistent/model.json");
        if (option.name == QLatin1String("--sequence-parallel")) // the tensor-parallel ranks it splits over
            args << QStringLiteral("--gpus") << QStringLiteral("2") << QStringLiteral("--tensor-parallel")
                 << QStringLiteral("2");
        if (option.name.startsWith(QLatin1String("--lora-")) || option.name == QLatin1String("--qlora"))
            args << QStringLiteral("--lora-rank")
                 << QStringLiteral("4"); // the adapters the LoRA options describe
        const Run r = runHeadroom(args);
        const bool refused = r.exitCode == 2 && r.err.contains(option.name) && r.err.contains(command);
        const QString why = args.join(QLatin1Char(' ')) + QStringLiteral(": exit ")
            + QString::number(r.exitCode) + QStringLiteral(", ") + r.err;
        QVERIFY2(refused == !listed.contains(option.name), qPrintable(why));
        if (refused)
            QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        else if (r.exitCode != 0)
            QVERIFY2(r.err.contains(QLatin1String("no such file")), qPrintable(why));
    }
    QVERIFY(!QFile::exists(pdf));
}

QTEST_GUILESS_MAIN(TestCliHelp)
#include "tst_clihelp.moc"
