#pragma once

// DiffHighlighter: colours unified diff text: added lines green, removed lines red, hunk headers
// blue and file headers bold, in colours that read on light and dark palettes. Inside a hunk it
// counts the lines the hunk header announces, so a removed line that starts with "--" or an added
// one that starts with "++" is still a removed or added line, not a file header. Colours only the
// text before a limit: a highlighter pass over megabytes would cost the GUI thread seconds.

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <limits>

class DiffHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    enum class Token {
        Added,
        Removed,
        HunkHeader, // @@ -1,3 +1,4 @@
        FileHeader, // diff --git, index, ---, +++, new file mode, rename from, Binary files …
        NoNewline, // \ No newline at end of file
    };

    explicit DiffHighlighter(QTextDocument* document);

    QTextCharFormat format(Token token) const;
    // Picks colours that read well on this background (light or dark palettes).
    void setDarkBackground(bool dark);
    // Blocks that start at or beyond this position stay uncoloured.
    void setHighlightLimit(qsizetype position) { m_limit = position; }
    qsizetype highlightLimit() const { return m_limit; }

protected:
    void highlightBlock(const QString& text) override;

private:
    void highlightOutsideHunk(const QString& text);

    QTextCharFormat m_added;
    QTextCharFormat m_removed;
    QTextCharFormat m_hunkHeader;
    QTextCharFormat m_fileHeader;
    QTextCharFormat m_noNewline;
    qsizetype m_limit = std::numeric_limits<qsizetype>::max();
};
