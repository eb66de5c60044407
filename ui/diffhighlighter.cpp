#include "diffhighlighter.h"

#include <QColor>
#include <QRegularExpression>
#include <QTextBlockUserData>

namespace {

// The block states: outside a hunk, or inside one with lines left to read. The exact counts live
// in the block's user data; the state only has to change whenever they do, so an edit upstream
// makes the highlighter carry on to the following blocks.
constexpr int OutsideHunk = 0;

// The old and new lines a hunk still has to show after this block.
class HunkLines : public QTextBlockUserData
{
public:
    HunkLines(qint64 oldLines, qint64 newLines)
        : oldLeft(oldLines)
        , newLeft(newLines)
    {}
    qint64 oldLeft;
    qint64 newLeft;
};

// "@@ -12,3 +12,4 @@ context": the old and new line counts; a missing count means 1.
bool parseHunkHeader(const QString& text, qint64* oldLines, qint64* newLines)
{
    static const QRegularExpression header(QStringLiteral("^@@ -\\d+(?:,(\\d+))? \\+\\d+(?:,(\\d+))? @@"));
    const QRegularExpressionMatch match = header.match(text);
    if (!match.hasMatch())
        return false;
    *oldLines = match.capturedLength(1) > 0 ? match.captured(1).toLongLong() : 1;
    *newLines = match.capturedLength(2) > 0 ? match.captured(2).toLongLong() : 1;
    return true;
}

bool isFileHeader(const QString& text)
{
    static const QLatin1String prefixes[] = {
        QLatin1String("diff "),
        QLatin1String("index "),
        QLatin1String("--- "),
        QLatin1String("+++ "),
        QLatin1String("new file mode"),
        QLatin1String("deleted file mode"),
        QLatin1String("old mode"),
        QLatin1String("new mode"),
        QLatin1String("similarity index"),
        QLatin1String("dissimilarity index"),
        QLatin1String("rename from"),
        QLatin1String("rename to"),
        QLatin1String("copy from"),
        QLatin1String("copy to"),
        QLatin1String("Binary files"),
    };
    for (const QLatin1String& prefix : prefixes) {
        if (text.startsWith(prefix))
            return true;
    }
    return false;
}

int stateFor(qint64 oldLeft, qint64 newLeft)
{
    if (oldLeft <= 0 && newLeft <= 0)
        return OutsideHunk;
    return int(qMin<qint64>(oldLeft + newLeft, std::numeric_limits<int>::max()));
}

} // namespace

DiffHighlighter::DiffHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document)
{
    m_fileHeader.setFontWeight(QFont::Bold);
    m_noNewline.setFontItalic(true);
    setDarkBackground(false);
}

void DiffHighlighter::setDarkBackground(bool dark)
{
    // GitHub's diff colours for its light and dark themes: strong enough to tell apart at a glance,
    // and readable as text on either background.
    m_added.setForeground(dark ? QColor(0x56, 0xd3, 0x64) : QColor(0x11, 0x63, 0x29));
    m_removed.setForeground(dark ? QColor(0xf8, 0x51, 0x49) : QColor(0xb3, 0x1d, 0x28));
    m_hunkHeader.setForeground(dark ? QColor(0x79, 0xc0, 0xff) : QColor(0x05, 0x50, 0xae));
    m_noNewline.setForeground(dark ? QColor(0x99, 0x99, 0x99) : QColor(0x70, 0x70, 0x70));
    rehighlight();
}

QTextCharFormat DiffHighlighter::format(Token token) const
{
    switch (token) {
    case Token::Added:
        return m_added;
    case Token::Removed:
        return m_removed;
    case Token::HunkHeader:
        return m_hunkHeader;
    case Token::FileHeader:
        return m_fileHeader;
    case Token::NoNewline:
        return m_noNewline;
    }
    return {};
}

void DiffHighlighter::highlightBlock(const QString& text)
{
    setCurrentBlockState(OutsideHunk);
    if (currentBlock().position() >= m_limit)
        return;
    const auto* hunk = previousBlockState() > OutsideHunk
        ? dynamic_cast<const HunkLines*>(currentBlock().previous().userData())
        : nullptr;
    if (!hunk) {
        highlightOutsideHunk(text);
        return;
    }
    qint64 oldLeft = hunk->oldLeft;
    qint64 newLeft = hunk->newLeft;
    const QChar first = text.isEmpty() ? QLatin1Char(' ') : text.at(0);
    // An empty line is a context line whose space an editor or mail client took away.
    if (first == QLatin1Char(' ')) {
        --oldLeft;
        --newLeft;
    } else if (first == QLatin1Char('-')) {
        --oldLeft;
        setFormat(0, int(text.size()), m_removed);
    } else if (first == QLatin1Char('+')) {
        --newLeft;
        setFormat(0, int(text.size()), m_added);
    } else if (first == QLatin1Char('\\')) {
        setFormat(0, int(text.size()), m_noNewline);
    } else {
        // The hunk said it had more lines than it has: read on as headers.
        highlightOutsideHunk(text);
        return;
    }
    setCurrentBlockUserData(new HunkLines(oldLeft, newLeft));
    setCurrentBlockState(stateFor(oldLeft, newLeft));
}

void DiffHighlighter::highlightOutsideHunk(const QString& text)
{
    qint64 oldLines = 0;
    qint64 newLines = 0;
    if (parseHunkHeader(text, &oldLines, &newLines)) {
        setFormat(0, int(text.size()), m_hunkHeader);
        setCurrentBlockUserData(new HunkLines(oldLines, newLines));
        setCurrentBlockState(stateFor(oldLines, newLines));
    } else if (text.startsWith(QLatin1String("@@"))) {
        setFormat(0, int(text.size()), m_hunkHeader);
    } else if (isFileHeader(text)) {
        setFormat(0, int(text.size()), m_fileHeader);
    } else if (text.startsWith(QLatin1Char('+'))) {
        // Text that is not a whole diff (a fragment, or a new file's lines): still the usual colours.
        setFormat(0, int(text.size()), m_added);
    } else if (text.startsWith(QLatin1Char('-'))) {
        setFormat(0, int(text.size()), m_removed);
    } else if (text.startsWith(QLatin1Char('\\'))) {
        setFormat(0, int(text.size()), m_noNewline);
    }
}
