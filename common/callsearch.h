#pragma once

// CallSearch: what a filter or a search asks of calls, and whether one call answers it: the one
// definition the live log's filter, "Search history too", "show call #N" and the History dialog
// share (SqliteHistory writes the same test in SQL, field for field). A call matches when
//  - every word appears in one of its fields: tool, client name, client version, route, status
//    (its name or its label), session, error or request (the arguments), case-insensitively for
//    ASCII letters (as SQLite's LIKE), other characters exactly;
//  - its status is one of `statuses` (any when empty);
//  - with `adapter`, it was routed to that upstream adapter (route adapter:NAME, not a text match).

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

    // The whitespace-separated words of a filter field.
    static QStringList wordsOf(const QString& text);
    // Statuses whose name ("timed_out") or label ("Timed out") contains `word`.
    static QList<CallStatus> statusesMatching(const QString& word);
    // `text` contains `word`, ASCII letters compared without case (SQLite's LIKE).
    static bool containsWord(QStringView text, QStringView word);
    static bool containsWord(QByteArrayView utf8, QByteArrayView utf8Word);

    bool isEmpty() const { return words.isEmpty() && statuses.isEmpty() && adapter.isEmpty(); }
    bool matches(const ToolCall& call) const;

    friend bool operator==(const CallSearch& a, const CallSearch& b)
    {
        return a.words == b.words && a.statuses == b.statuses && a.adapter == b.adapter;
    }
};

Q_DECLARE_METATYPE(CallSearch)
