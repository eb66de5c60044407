#include "callsearch.h"

#include <algorithm>

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

namespace {

const QLatin1String ToolQualifier("tool:");
const QLatin1String ClientQualifier("client:");

// The terms of a filter field, whitespace-separated. A qualifier's name may be quoted to hold
// spaces (client:"Claude Desktop", with \" and \\ inside for a quote and a backslash; an unclosed
// quote runs to the end); anywhere else a quote is a character like any other, so that a search for
// "path":"/etc" finds those arguments.
QStringList termsOf(const QString& text)
{
    QStringList terms;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        if (text.at(i).isSpace()) {
            ++i;
            continue;
        }
        QString term;
        for (const QLatin1String qualifier : {ToolQualifier, ClientQualifier}) {
            const qsizetype quote = i + qualifier.size();
            if (quote < n && text.at(quote) == QLatin1Char('"')
                && QStringView(text).mid(i, qualifier.size()).compare(qualifier, Qt::CaseInsensitive) == 0) {
                term = text.mid(i, qualifier.size());
                for (i = quote + 1; i < n && text.at(i) != QLatin1Char('"'); ++i) {
                    if (text.at(i) == QLatin1Char('\\') && i + 1 < n
                        && (text.at(i + 1) == QLatin1Char('"') || text.at(i + 1) == QLatin1Char('\\')))
                        ++i;
                    term += text.at(i);
                }
                ++i; // past the closing quote
                break;
            }
        }
        // Whatever follows a closing quote up to the next space belongs to the same term.
        while (i < n && !text.at(i).isSpace())
            term += text.at(i++);
        terms << term;
    }
    return terms;
}

QString quotedIfNeeded(const QString& name)
{
    const bool plain = !name.isEmpty() && std::none_of(name.begin(), name.end(), [](QChar c) {
        return c.isSpace() || c == QLatin1Char('"') || c == QLatin1Char('\\');
    });
    if (plain)
        return name;
    QString quoted = name;
    quoted.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    quoted.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

QStringList CallSearch::wordsOf(const QString& text)
{
    return termsOf(text);
}

CallSearch CallSearch::fromText(const QString& text)
{
    CallSearch search;
    for (const QString& term : termsOf(text)) {
        if (term.startsWith(ToolQualifier, Qt::CaseInsensitive)) {
            if (term.size() > ToolQualifier.size()) // "tool:" alone, still being typed, asks nothing
                search.tools << term.mid(ToolQualifier.size());
        } else if (term.startsWith(ClientQualifier, Qt::CaseInsensitive)) {
            if (term.size() > ClientQualifier.size())
                search.clients << term.mid(ClientQualifier.size());
        } else {
            search.words << term;
        }
    }
    return search;
}

QString CallSearch::toolTerm(const QString& tool)
{
    return ToolQualifier + quotedIfNeeded(tool);
}

QString CallSearch::clientTerm(const QString& client)
{
    return ClientQualifier + quotedIfNeeded(client);
}

bool CallSearch::sameName(QStringView a, QStringView b)
{
    return a.size() == b.size() && containsWord(a, b);
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
    for (const QString& tool : tools) {
        if (!sameName(call.tool, tool))
            return false;
    }
    for (const QString& client : clients) {
        if (!sameName(call.clientName, client))
            return false;
    }
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
