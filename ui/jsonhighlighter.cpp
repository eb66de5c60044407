#include "jsonhighlighter.h"

#include <QColor>

namespace {

bool isNumberStart(QChar c)
{
    return c.isDigit() || c == QLatin1Char('-');
}

bool isNumberPart(QChar c)
{
    return c.isDigit() || c == QLatin1Char('.') || c == QLatin1Char('e') || c == QLatin1Char('E')
        || c == QLatin1Char('+') || c == QLatin1Char('-');
}

bool isPunctuation(QChar c)
{
    return c == QLatin1Char('{') || c == QLatin1Char('}') || c == QLatin1Char('[') || c == QLatin1Char(']')
        || c == QLatin1Char(':') || c == QLatin1Char(',');
}

} // namespace

JsonHighlighter::JsonHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document)
{
    m_key.setFontWeight(QFont::DemiBold);
    setDarkBackground(false);
}

void JsonHighlighter::setDarkBackground(bool dark)
{
    m_key.setForeground(dark ? QColor(0x9c, 0xdc, 0xfe) : QColor(0x0b, 0x4f, 0x8a));
    m_string.setForeground(dark ? QColor(0xce, 0x91, 0x78) : QColor(0xa3, 0x15, 0x15));
    m_number.setForeground(dark ? QColor(0xb5, 0xce, 0xa8) : QColor(0x09, 0x86, 0x58));
    m_keyword.setForeground(dark ? QColor(0x56, 0x9c, 0xd6) : QColor(0x80, 0x00, 0x80));
    m_keyword.setFontWeight(QFont::Bold);
    m_punctuation.setForeground(dark ? QColor(0x99, 0x99, 0x99) : QColor(0x70, 0x70, 0x70));
    rehighlight();
}

QTextCharFormat JsonHighlighter::format(Token token) const
{
    switch (token) {
    case Token::Key:
        return m_key;
    case Token::String:
        return m_string;
    case Token::Number:
        return m_number;
    case Token::Keyword:
        return m_keyword;
    case Token::Punctuation:
        return m_punctuation;
    }
    return {};
}

void JsonHighlighter::highlightBlock(const QString& text)
{
    // Pretty-printed JSON never splits a token across lines (newlines inside strings are escaped),
    // so a block can be tokenised on its own without carrying state between blocks.
    if (currentBlock().position() >= m_limit)
        return;
    const qsizetype length = text.size();
    qsizetype i = 0;
    while (i < length) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('"')) {
            qsizetype end = i + 1;
            while (end < length && text.at(end) != QLatin1Char('"'))
                end += text.at(end) == QLatin1Char('\\') ? 2 : 1;
            end = qMin(end + 1, length);
            // A string followed by a colon is an object key.
            qsizetype next = end;
            while (next < length && text.at(next).isSpace())
                ++next;
            const bool isKey = next < length && text.at(next) == QLatin1Char(':');
            setFormat(int(i), int(end - i), isKey ? m_key : m_string);
            i = end;
        } else if (isNumberStart(c)) {
            qsizetype end = i + 1;
            while (end < length && isNumberPart(text.at(end)))
                ++end;
            setFormat(int(i), int(end - i), m_number);
            i = end;
        } else if (c.isLetter()) {
            qsizetype end = i + 1;
            while (end < length && text.at(end).isLetter())
                ++end;
            const QStringView word = QStringView(text).mid(i, end - i);
            if (word == u"true" || word == u"false" || word == u"null")
                setFormat(int(i), int(end - i), m_keyword);
            i = end;
        } else if (isPunctuation(c)) {
            setFormat(int(i), 1, m_punctuation);
            ++i;
        } else {
            ++i;
        }
    }
}
