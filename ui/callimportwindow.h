#pragma once

// CallImportWindow: calls read from an NDJSON file (File ▸ Open NDJSON…) in a window of their own:
// the call log's view and an inspector over an in-memory model, read-only. Nothing in it reaches a
// server: its calls are not replayed and not added to history; only copying (JSON, curl) is offered.
// The rows keep previews as the live log's do; the inspector shows the whole call from the file.

#include "toolcall.h"

#include <QHash>
#include <QMainWindow>

class CallInspector;
class CallLogModel;
class CallLogView;
class QLabel;

class CallImportWindow : public QMainWindow
{
    Q_OBJECT
public:
    // `summary` says what was read (NdjsonCallReader::summary); `serverUrl` and `tokenRequired` are
    // for the inspector's "Copy as curl".
    CallImportWindow(const QString& path, const ToolCallList& calls, const QString& summary, const QUrl& serverUrl,
        bool tokenRequired, QWidget* parent = nullptr);

    CallLogModel* model() const { return m_model; }
    CallLogView* callLogView() const { return m_callLog; }
    CallInspector* inspector() const { return m_inspector; }
    QLabel* summaryLabel() const { return m_summary; }

private:
    void onCurrentCallChanged(const ToolCall& call);

    QHash<qint64, ToolCall> m_calls; // the whole calls, by id
    CallLogModel* m_model;
    CallLogView* m_callLog;
    CallInspector* m_inspector;
    QLabel* m_summary;
};
