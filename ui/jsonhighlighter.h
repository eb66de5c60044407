#pragma once

// JsonHighlighter: colours JSON text (keys, strings, numbers, true/false/null, punctuation) in a
// QTextDocument. It only tokenises for colour and never judges validity, so raw text that is not
// JSON still shows, just with fewer colours. Colours only the text before a limit: a highlighter
// pass over megabytes would cost the GUI thread seconds.

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <limits>

class JsonHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    enum class Token {
        Key,
        String,
        Number,
        Keyword, // true, false, null
        Punctuation,
    };

    explicit JsonHighlighter(QTextDocument* document);

    QTextCharFormat format(Token token) const;
    // Picks colours that read well on this background (light or dark palettes).
    void setDarkBackground(bool dark);
    // Blocks that start at or beyond this position stay uncoloured.
    void setHighlightLimit(qsizetype position) { m_limit = position; }
    qsizetype highlightLimit() const { return m_limit; }

protected:
    void highlightBlock(const QString& text) override;

private:
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_keyword;
    QTextCharFormat m_punctuation;
    qsizetype m_limit = std::numeric_limits<qsizetype>::max();
};
