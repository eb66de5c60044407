#pragma once

// CallSearch: what a filter or a search asks of calls, and whether one call answers it: the one
// definition the live log's filter, "Search history too", "show call #N" and the History dialog
// share (SqliteHistory writes the same test in SQL, field for field). A call matches when
//  - every word appears in one of its fields: tool, client name, client version, route, status
//    (its name or its label), session, error or request (the arguments), case-insensitively for
//    ASCII letters (as SQLite's LIKE), other characters exactly;
//  - its status is one of `statuses` (any when empty);
//  - with `adapter`, it was routed to that upstream adapter (route adapter:NAME, not a text match);
//  - with `tools` or `clients` (`tool:NAME` and `client:NAME` in the text), its tool or its client's
//    name is each NAME, whole (ASCII letters without case, as the words): what "Filter by Tool" and
//    "Filter by Client" ask, so that filtering by `echo` does not also show `echo_loud` or calls whose
//    arguments say echo.
//
// In the text, a qualifier's NAME may be quoted to hold spaces: client:"Claude Desktop", with \" and
// \\ inside the quotes for a quote and a backslash. A quote anywhere else is an ordinary character.

#include "toolcall.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

struct CallSearch
{
    QStringList words; // as fromText splits them; matched case-insensitively
    QList<CallStatus> statuses; // empty: every status
    QString adapter; // empty: every route
    QStringList tools; // each the call's tool, whole
    QStringList clients; // each the call's client name, whole

    // The words and the tool: and client: qualifiers of a filter field (statuses and adapter are
    // chosen elsewhere and stay empty).
    static CallSearch fromText(const QString& text);
    // The whitespace-separated terms of a filter field, qualifiers included (their quotes taken off).
    static QStringList wordsOf(const QString& text);
    // "tool:NAME" and "client:NAME" for a filter field, NAME quoted where it needs to be.
    static QString toolTerm(const QString& tool);
    static QString clientTerm(const QString& client);
    // `a` and `b` are the same, ASCII letters compared without case (SQLite's LIKE without wildcards).
    static bool sameName(QStringView a, QStringView b);
    // Statuses whose name ("timed_out") or label ("Timed out") contains `word`.
    static QList<CallStatus> statusesMatching(const QString& word);
    // `text` contains `word`, ASCII letters compared without case (SQLite's LIKE).
    static bool containsWord(QStringView text, QStringView word);
    static bool containsWord(QByteArrayView utf8, QByteArrayView utf8Word);

    bool isEmpty() const
    {
        return words.isEmpty() && statuses.isEmpty() && adapter.isEmpty() && tools.isEmpty() && clients.isEmpty();
    }
    bool matches(const ToolCall& call) const;

    friend bool operator==(const CallSearch& a, const CallSearch& b)
    {
        return a.words == b.words && a.statuses == b.statuses && a.adapter == b.adapter && a.tools == b.tools
            && a.clients == b.clients;
    }
};

Q_DECLARE_METATYPE(CallSearch)
