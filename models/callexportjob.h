#pragma once

// CallExportJob: writes calls to a file as NDJSON or HAR (CallExportWriter), whole: a call the
// caller holds only as a preview (ToolCall::hasBodyPreviews) is loaded whole from history first, and
// a history search is read a page at a time with whole bodies. One call or one page is in memory at
// a time, so an export of any size costs little. The file appears only when the export is complete
// (QSaveFile); cancel() leaves whatever was there before.

#include "callexportwriter.h"
#include "historyquery.h"

#include <QObject>
#include <QSaveFile>

#include <memory>

class OperatorInterface;

class CallExportJob : public QObject
{
    Q_OBJECT
public:
    // Calls read from history per page: whole bodies can be megabytes each.
    static constexpr int HistoryPageSize = 50;

    CallExportJob(OperatorInterface* backend, const QString& path, CallExportWriter::Format format,
        const QUrl& serverUrl, QObject* parent = nullptr);
    ~CallExportJob() override;

    // Exports these calls in this order (the live log's filtered rows).
    void startWithCalls(const ToolCallList& calls);
    // Exports every call the query matches (its text and status; paging and previews are the job's).
    void startWithQuery(const HistoryQuery& query);
    void cancel();

    bool isRunning() const { return m_running; }
    qint64 written() const { return m_writer ? m_writer->written() : 0; }
    // -1 while a history search's size is not known.
    qint64 total() const { return m_total; }
    // Calls written as previews because history did not have them whole.
    qint64 previewsWritten() const { return m_previewsWritten; }
    QString path() const { return m_file.fileName(); }

Q_SIGNALS:
    void progressed(qint64 written, qint64 total);
    // `message` says what was written, or why nothing was.
    void finished(bool ok, const QString& message);

private:
    bool open();
    void next();
    void onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void write(const ToolCall& call);
    void complete();
    void fail(const QString& message);

    OperatorInterface* m_backend;
    QSaveFile m_file;
    CallExportWriter::Format m_format;
    QUrl m_serverUrl;
    std::unique_ptr<CallExportWriter> m_writer;
    bool m_running = false;
    bool m_fromQuery = false;
    ToolCallList m_calls;
    qsizetype m_index = 0;
    HistoryQuery m_query;
    quint64 m_pendingRequest = 0;
    qint64 m_total = -1;
    qint64 m_previewsWritten = 0;
};
