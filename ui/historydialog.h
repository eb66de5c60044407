#pragma once

// HistoryDialog: searches every stored call (not only the live log's rows), one page at a time,
// newest first, and shows the selected one in its own CallInspector. Queries run on the backend's
// history thread; an answer for anything but the latest request is ignored. A page holds previews of
// the calls' bodies (CallLogModel::PreviewBytes each), so its memory is bounded by bytes as well as
// rows; a selected call whose bodies were cut is shown as a preview, then whole once history sends it.
// Export… writes every call the search matches (all pages, whole bodies) as NDJSON or HAR.

#include "historyquery.h"

#include <QDialog>

class OperatorInterface;
class CallExportJob;
class CallInspector;
class HistoryModel;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class StatusFilterBox;

class HistoryDialog : public QDialog
{
    Q_OBJECT
public:
    explicit HistoryDialog(OperatorInterface* backend, QWidget* parent = nullptr);

    static constexpr int PageSize = 200;

    HistoryModel* model() const { return m_model; }
    QTableView* tableView() const { return m_table; }
    CallInspector* inspector() const { return m_inspector; }
    bool isSearching() const { return m_pendingRequest != 0; }
    QPushButton* exportButton() const { return m_exportButton; }

public Q_SLOTS:
    // Searches from the newest matching call.
    void search();
    // The next page of older matches.
    void showOlder();
    // Every stored call from `callId` back (the search cleared), with that call selected: the call
    // log's "Show in History".
    void showFromCall(qint64 callId);
    // Writes every call the search on screen matches to `path` (".har": HAR, else NDJSON); the
    // returned job reports when it is done. Export… asks for the path, then calls this.
    CallExportJob* exportResults(const QString& path);

private:
    void runQuery(qint64 beforeId);
    void onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void onCurrentRowChanged();
    void onWholeCallLoaded(const ToolCallList& calls);
    void updateSummary();

    OperatorInterface* m_backend;
    HistoryModel* m_model;
    QLineEdit* m_searchEdit;
    StatusFilterBox* m_statusFilter;
    QPushButton* m_searchButton;
    QPushButton* m_newestButton;
    QPushButton* m_olderButton;
    QPushButton* m_exportButton;
    QLabel* m_summary;
    QTableView* m_table;
    CallInspector* m_inspector;
    HistoryQuery m_query; // the query on screen (or on its way)
    int m_page = 0; // 0 for the newest page
    quint64 m_pendingRequest = 0;
    qint64 m_selectCallId = 0; // showFromCall: selected once its page arrives
    quint64 m_wholeCallRequest = 0; // the selected call, whole
    qint64 m_wholeCallId = 0;
};
