#include "callsearch.h"

#include <QRegularExpression>

namespace {

template<typename Char>
Char foldAscii(Char c)
{
    return c >= Char('A') && c <= Char('Z') ? Char(c + ('a' - 'A')) : c;
}

// Naive search: words are short, and a row's fields are at most a preview long.
template<typename View>
bool containsFolded(const View& text, const View& word)
{
    const qsizetype n = word.size();
    if (n == 0)
        return true;
    for (qsizetype start = 0; start + n <= text.size(); ++start) {
        qsizetype i = 0;
        while (i < n && foldAscii(text[start + i]) == foldAscii(word[i]))
            ++i;
        if (i == n)
            return true;
    }
    return false;
}

} // namespace

QStringList CallSearch::wordsOf(const QString& text)
{
    static const QRegularExpression whitespace(QStringLiteral("\\s+"));
    return text.split(whitespace, Qt::SkipEmptyParts);
}

QList<CallStatus> CallSearch::statusesMatching(const QString& word)
{
    QList<CallStatus> statuses;
    for (CallStatus status : allCallStatuses()) {
        if (containsWord(callStatusName(status), word) || containsWord(callStatusLabel(status), word))
            statuses.append(status);
    }
    return statuses;
}

bool CallSearch::containsWord(QStringView text, QStringView word)
{
    const auto chars = [](QStringView view) {
        struct Units
        {
            QStringView view;
            qsizetype size() const { return view.size(); }
            char16_t operator[](qsizetype i) const { return view[i].unicode(); }
        };
        return Units{view};
    };
    return containsFolded(chars(text), chars(word));
}

bool CallSearch::containsWord(QByteArrayView utf8, QByteArrayView utf8Word)
{
    return containsFolded(utf8, utf8Word);
}

bool CallSearch::matches(const ToolCall& call) const
{
    if (!statuses.isEmpty() && !statuses.contains(call.status))
        return false;
    if (!adapter.isEmpty() && (call.route.kind != RouteKind::Adapter || call.route.owner != adapter))
        return false;
    if (words.isEmpty())
        return true;
    const QString route = call.route.toString();
    const QString statusName = callStatusName(call.status);
    const QString statusLabel = callStatusLabel(call.status);
    for (const QString& word : words) {
        const bool found = containsWord(call.tool, word) || containsWord(call.clientName, word)
            || containsWord(call.clientVersion, word) || containsWord(route, word) || containsWord(statusName, word)
            || containsWord(statusLabel, word) || containsWord(call.sessionId, word) || containsWord(call.error, word)
            || containsWord(QByteArrayView(call.request), QByteArrayView(word.toUtf8()));
        if (!found)
            return false;
    }
    return true;
}
