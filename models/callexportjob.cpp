#include "callexportjob.h"

#include "operatorinterface.h"

#include <QCoreApplication>
#include <QTimer>

CallExportJob::CallExportJob(OperatorInterface* backend, const QString& path, CallExportWriter::Format format,
    const QUrl& serverUrl, QObject* parent)
    : QObject(parent)
    , m_backend(backend)
    , m_file(path)
    , m_format(format)
    , m_serverUrl(serverUrl)
{
    connect(m_backend, &OperatorInterface::historyLoaded, this, &CallExportJob::onHistoryLoaded);
}

CallExportJob::~CallExportJob()
{
    if (m_running)
        m_file.cancelWriting();
}

bool CallExportJob::open()
{
    if (!m_file.open(QIODevice::WriteOnly)) {
        fail(tr("Cannot write %1: %2").arg(m_file.fileName(), m_file.errorString()));
        return false;
    }
    m_writer
        = std::make_unique<CallExportWriter>(&m_file, m_format, m_serverUrl, QCoreApplication::applicationVersion());
    m_running = true;
    if (!m_writer->begin()) {
        fail(tr("Writing %1 failed: %2").arg(m_file.fileName(), m_writer->error()));
        return false;
    }
    return true;
}

void CallExportJob::startWithCalls(const ToolCallList& calls)
{
    m_calls = calls;
    m_index = 0;
    m_total = calls.size();
    m_fromQuery = false;
    if (open())
        next();
}

void CallExportJob::startWithQuery(const HistoryQuery& query)
{
    m_query = query;
    m_query.beforeId = 0;
    m_query.callId = 0;
    m_query.bodyPreviewBytes = 0;
    m_query.limit = HistoryPageSize;
    m_fromQuery = true;
    m_total = -1;
    if (open())
        m_pendingRequest = m_backend->queryHistory(m_query);
}

void CallExportJob::cancel()
{
    if (!m_running)
        return;
    m_running = false;
    m_pendingRequest = 0;
    m_file.cancelWriting();
    m_file.commit(); // closes it; a cancelled QSaveFile leaves the target as it was
    Q_EMIT finished(false, tr("Export cancelled; nothing was written."));
}

void CallExportJob::next()
{
    // Whole calls are written in a row; a preview waits for history, then the loop goes on from there.
    while (m_running && m_index < m_calls.size()) {
        const ToolCall& call = m_calls.at(m_index);
        if (call.hasBodyPreviews()) {
            HistoryQuery query;
            query.callId = call.id;
            query.limit = 1;
            m_pendingRequest = m_backend->queryHistory(query);
            return;
        }
        write(call);
        ++m_index;
        if (m_index % 500 == 0 && m_index < m_calls.size()) {
            // Let the window breathe (and a Cancel reach us) between stretches of writing.
            QTimer::singleShot(0, this, &CallExportJob::next);
            return;
        }
    }
    if (m_running)
        complete();
}

void CallExportJob::onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore)
{
    if (!m_running || requestId == 0 || requestId != m_pendingRequest)
        return;
    m_pendingRequest = 0;
    if (m_fromQuery) {
        for (const ToolCall& call : calls) {
            write(call);
            if (!m_running)
                return;
        }
        if (hasMore && !calls.isEmpty()) {
            m_query.beforeId = calls.last().id;
            m_pendingRequest = m_backend->queryHistory(m_query);
        } else {
            complete();
        }
        return;
    }
    const ToolCall& wanted = m_calls.at(m_index);
    if (!calls.isEmpty() && calls.first().id == wanted.id) {
        // Whole, or as much of it as history keeps (the start of large bodies), which is more than
        // the preview.
        if (calls.first().hasBodyPreviews())
            ++m_previewsWritten;
        write(calls.first());
    } else {
        // History does not have it (not written yet, or its disk failed): the preview, marked as one.
        ++m_previewsWritten;
        write(wanted);
    }
    ++m_index;
    next();
}

void CallExportJob::write(const ToolCall& call)
{
    if (!m_writer->write(call)) {
        fail(tr("Writing %1 failed: %2").arg(m_file.fileName(), m_writer->error()));
        return;
    }
    Q_EMIT progressed(m_writer->written(), m_total);
}

void CallExportJob::complete()
{
    if (!m_writer->finish()) {
        fail(tr("Writing %1 failed: %2").arg(m_file.fileName(), m_writer->error()));
        return;
    }
    m_running = false;
    if (!m_file.commit()) {
        Q_EMIT finished(false, tr("Saving %1 failed: %2").arg(m_file.fileName(), m_file.errorString()));
        return;
    }
    QString message = m_writer->written() == 1
        ? tr("Exported 1 call to %1").arg(m_file.fileName())
        : tr("Exported %1 calls to %2").arg(m_writer->written()).arg(m_file.fileName());
    if (m_previewsWritten > 0)
        message += QLatin1String("; ")
            + tr("%1 of them only as previews: history does not have them whole").arg(m_previewsWritten);
    Q_EMIT finished(true, message);
}

void CallExportJob::fail(const QString& message)
{
    const bool wasRunning = m_running;
    m_running = false;
    m_pendingRequest = 0;
    if (wasRunning)
        m_file.cancelWriting();
    Q_EMIT finished(false, message);
}
