// The documentation's figures, checked by running the commands written next to them (issue 35: the user
// guide's max batches went stale when the answer moved to the reserved peak). Every `headroom ...`
// command in a fenced block of README.md and docs/*.md is run from the source tree, and what the block
// says it prints must be in what it prints:
// - in a ```sh block, the figures of the `# ...` comment on the command's line or on the lines after it
//   ("# 43 (micro-batch per GPU)": 43 must be printed);
// - in a plain ``` block of `$ headroom ...` lines, each line after a command is a line of its output
//   (spaces aside), in order; `...` stands for lines left out, and a line ending in `...` for the
//   printed line it starts;
// - in the prose, `<!-- docs-check: headroom ... | figure | figure -->` ties figures a paragraph quotes
//   (what the GUI shows in a walk-through) to the command that prints them.
// A block whose commands cannot run as written (a synopsis, the user's own file) is preceded by
// `<!-- docs-check: skip (why) -->`.
#include "RunHeadroom.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

struct DocCommand
{
    QString where; ///< "docs/user-guide.md:243"
    QString command; ///< as written, continuations joined
    QStringList expectedLines; ///< output lines, in order ("..." skips)
    QStringList figures; ///< each must be printed
};

QString sourcePath(const QString& relative)
{
    return QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/") + relative;
}

/// A shell word list: double and single quotes, backslash escapes; no expansions (the docs use none).
QStringList shellWords(const QString& line)
{
    QStringList words;
    QString word;
    bool inWord = false;
    QChar quote;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
            else if (c == u'\\' && quote == u'"' && i + 1 < line.size())
                word += line[++i];
            else
                word += c;
        } else if (c == u'"' || c == u'\'') {
            quote = c;
            inWord = true;
        } else if (c == u'\\' && i + 1 < line.size()) {
            word += line[++i];
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words << word;
    return words;
}

/// Where an unquoted `#` starts a comment in a shell line (-1: none).
qsizetype commentStart(const QString& line)
{
    QChar quote;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
        } else if (c == u'"' || c == u'\'') {
            quote = c;
        } else if (c == u'#' && (i == 0 || line[i - 1].isSpace())) {
            return i;
        }
    }
    return -1;
}

/// The figures a comment quotes: numbers with their unit where one follows ("54.02 GiB", "2,236", "43").
QStringList figuresIn(const QString& text)
{
    static const QRegularExpression figure(
        QStringLiteral(R"((?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s?(?:TiB|GiB|MiB|KiB|ms|s|%)(?!\w))?)"));
    QStringList found;
    for (auto it = figure.globalMatch(text); it.hasNext();)
        found << it.next().captured(0);
    return found;
}

QString squeezed(const QString& s)
{
    return s.simplified();
}

/// Whether `output` holds `figure` as a figure of its own (not inside a longer number).
bool printsFigure(const QString& output, const QString& figure)
{
    // "2,172" in the prose is the "2172" a table prints: thousands separators aside.
    static const QRegularExpression separator(QStringLiteral("(?<=\\d),(?=\\d{3}(?!\\d))"));
    const auto plain = [](QString s) { return s.replace(separator, QString()).simplified(); };
    const QRegularExpression re(QStringLiteral("(?<![\\d.,])") + QRegularExpression::escape(plain(figure))
        + QStringLiteral("(?![\\d]|[.,]\\d)"));
    return re.match(plain(output)).hasMatch();
}

/// Joins a command's `\` continuation lines, starting at lines[i]; i is left on its last line.
QString joinedCommand(const QStringList& lines, qsizetype& i, bool console)
{
    QString command = lines[i].trimmed();
    if (console)
        command = command.mid(2);
    while (command.endsWith(u'\\') && i + 1 < lines.size()) {
        command.chop(1);
        command += u' ' + lines[++i].trimmed();
    }
    return command.trimmed();
}

QList<DocCommand> commandsOfBlock(
    const QString& file, int firstLine, const QString& info, const QStringList& body)
{
    QList<DocCommand> commands;
    const bool sh = info == u"sh";
    for (qsizetype i = 0; i < body.size(); ++i) {
        const QString trimmed = body[i].trimmed();
        const bool isCommand = sh ? trimmed.startsWith(u"headroom ") : trimmed.startsWith(u"$ headroom ");
        if (!isCommand) {
            if (!commands.isEmpty()) {
                if (sh && trimmed.startsWith(u'#'))
                    commands.last().figures << figuresIn(trimmed.mid(1));
                else if (!sh && !trimmed.isEmpty())
                    commands.last().expectedLines << squeezed(trimmed);
            }
            continue;
        }
        DocCommand c;
        c.where = QStringLiteral("%1:%2").arg(file).arg(firstLine + 1 + i);
        QString command = joinedCommand(body, i, !sh);
        if (sh) {
            const qsizetype hash = commentStart(command);
            if (hash >= 0) {
                c.figures << figuresIn(command.mid(hash + 1));
                command.truncate(hash);
            }
        }
        c.command = command.trimmed();
        commands << c;
    }
    return commands;
}

QList<DocCommand> commandsOfFile(const QString& file)
{
    QFile f(sourcePath(file));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QString text = QString::fromUtf8(f.readAll());
    const QStringList lines = text.split(u'\n');
    QList<DocCommand> commands;
    bool skipNext = false;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString trimmed = lines[i].trimmed();
        if (trimmed.startsWith(u"<!-- docs-check:")) {
            QString note = trimmed;
            const qsizetype first = i;
            while (!note.contains(u"-->") && i + 1 < lines.size())
                note += u' ' + lines[++i].trimmed();
            note = note.mid(note.indexOf(u':') + 1);
            note.truncate(note.indexOf(u"-->"));
            note = note.trimmed();
            if (note.startsWith(u"skip")) {
                skipNext = true;
                continue;
            }
            QStringList parts = note.split(u'|');
            DocCommand c;
            c.where = QStringLiteral("%1:%2").arg(file).arg(first + 1);
            c.command = parts.takeFirst().trimmed();
            for (const QString& p : parts)
                c.figures << p.trimmed();
            commands << c;
            continue;
        }
        if (!trimmed.startsWith(u"```"))
            continue;
        const QString info = trimmed.mid(3).trimmed();
        const int firstLine = static_cast<int>(i) + 1;
        QStringList body;
        while (++i < lines.size() && !lines[i].trimmed().startsWith(u"```"))
            body << lines[i];
        if (!skipNext)
            commands << commandsOfBlock(file, firstLine, info, body);
        skipNext = false;
    }
    return commands;
}

QStringList documentedFiles()
{
    QStringList files { QStringLiteral("README.md") };
    const QDir docs(sourcePath(QStringLiteral("docs")));
    for (const QString& name : docs.entryList({ QStringLiteral("*.md") }, QDir::Files, QDir::Name))
        files << QStringLiteral("docs/") + name;
    return files;
}

/// Where `expected` (in order, "..." skipping) is missing from `output`; empty when all are there.
QString missingLine(const QString& output, const QStringList& expected)
{
    QStringList printed;
    for (const QString& line : output.split(u'\n'))
        printed << squeezed(line);
    qsizetype at = 0;
    for (const QString& line : expected) {
        if (line == u"..." || line.isEmpty())
            continue;
        // A line cut with "..." stands for the printed line it starts.
        const bool cut = line.endsWith(u"...");
        const QString start = cut ? line.chopped(3).trimmed() : line;
        qsizetype found = at;
        while (found < printed.size() && (cut ? !printed[found].startsWith(start) : printed[found] != line))
            ++found;
        if (found == printed.size())
            return line;
        at = found + 1;
    }
    return {};
}

} // namespace

class TestDocFigures : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_work.isValid());
        // The commands name files from the source tree's root, and write reports where they run.
        for (const char* dir : { "resources", "tests", "docs" })
            QVERIFY(
                QFile::link(sourcePath(QString::fromLatin1(dir)), m_work.filePath(QString::fromLatin1(dir))));
    }

    void everyDocumentedCommandPrintsWhatTheDocsSay_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("expectedLines");
        QTest::addColumn<QStringList>("figures");
        int count = 0;
        for (const QString& file : documentedFiles()) {
            for (const DocCommand& c : commandsOfFile(file)) {
                QTest::newRow(qPrintable(c.where)) << c.command << c.expectedLines << c.figures;
                ++count;
            }
        }
        // The guide's walk-throughs alone quote a dozen commands: finding none means the parser broke.
        QVERIFY2(count >= 20, qPrintable(QStringLiteral("only %1 documented commands found").arg(count)));
    }

    void everyDocumentedCommandPrintsWhatTheDocsSay()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, expectedLines);
        QFETCH(QStringList, figures);
        QStringList words = shellWords(command);
        QVERIFY2(!words.isEmpty() && words.first() == u"headroom", qPrintable(command));
        words.removeFirst();
        const Run run = runHeadroomIn(m_work.path(), words);
        QVERIFY2(run.exitCode == 0 || run.exitCode == 1,
            qPrintable(QStringLiteral("exit %1: %2").arg(run.exitCode).arg(run.err)));
        const QString output = run.out + run.err;
        const QString missing = missingLine(output, expectedLines);
        QVERIFY2(missing.isEmpty(),
            qPrintable(
                QStringLiteral("the docs show \"%1\"; the command printed:\n%2").arg(missing, output)));
        for (const QString& figure : figures)
            QVERIFY2(printsFigure(output, figure),
                qPrintable(
                    QStringLiteral("the docs quote %1; the command printed:\n%2").arg(figure, output)));
    }

    // The checker itself: it must find figures and lines where they are, and only there.
    void theCheckerReadsTheDocsConventions()
    {
        QCOMPARE(shellWords(QStringLiteral(R"(headroom max-batch "a b.json" --gpu 'GTX 1080' x\ y)")),
            (QStringList {
                u"headroom"_s, u"max-batch"_s, u"a b.json"_s, u"--gpu"_s, u"GTX 1080"_s, u"x y"_s }));
        QCOMPARE(figuresIn(QStringLiteral(" Total 54.02 GiB per GPU: fits; Max batch: 9; 2,236 (1.5 %)")),
            (QStringList { u"54.02 GiB"_s, u"9"_s, u"2,236"_s, u"1.5 %"_s }));
        QVERIFY(printsFigure(QStringLiteral("Max batch: 71\n"), QStringLiteral("71")));
        QVERIFY(!printsFigure(QStringLiteral("Max batch: 712\n"), QStringLiteral("71")));
        QVERIFY(!printsFigure(QStringLiteral("Max batch: 1.71\n"), QStringLiteral("71")));
        QVERIFY(!printsFigure(QStringLiteral("6.02 GiB"), QStringLiteral("6.0 GiB")));
        QVERIFY(printsFigure(QStringLiteral("effective batch 2172 ="), QStringLiteral("2,172")));
        QVERIFY(!printsFigure(QStringLiteral("effective batch 2172 ="), QStringLiteral("2,17")));
        QVERIFY(missingLine(QStringLiteral("a  b\nc\nd  e\n"), QStringList { u"a b"_s, u"..."_s, u"d e"_s })
                    .isEmpty());
        QCOMPARE(missingLine(QStringLiteral("d e\na b\n"), QStringList { u"a b"_s, u"d e"_s }),
            QStringLiteral("d e"));
        QVERIFY(missingLine(QStringLiteral("- Assumes 40% of it\n"), QStringList { u"- Assumes 40% ..."_s })
                    .isEmpty());
        QVERIFY(!missingLine(QStringLiteral("- Assumes 30% of it\n"), QStringList { u"- Assumes 40% ..."_s })
                     .isEmpty());
    }

private:
    static Run runHeadroomIn(const QString& directory, const QStringList& args)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        // The docs are in English.
        env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("en"));
        env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(directory);
        p.start(QStringLiteral(HEADROOM_BINARY), args);
        if (!p.waitForFinished(120000))
            return {};
        return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError()) };
    }

    QTemporaryDir m_work;
};

QTEST_GUILESS_MAIN(TestDocFigures)
#include "tst_docfigures.moc"
