#pragma once

// WorkspaceStateStore: the InteractionState in the workspace state file (workspace.json, owner-only,
// written atomically by WorkspaceStateWriter on a thread of its own). The file is compact JSON
// assembled from the records as they are: {"version": 2, "pending": [question records in order],
// "clientOutputs": […], "approvals": {…}}; a change costs the backend thread the record that
// changed, and the writer joins the parts.

#include "interaction/interactionstate.h"
#include "store/workspacestatefile.h"

#include <QHash>
#include <QStringList>

class WorkspaceStateStore : public InteractionState
{
    Q_OBJECT
public:
    // 2: keys are hashes that name the client; compact JSON. A file of another version is set aside.
    static constexpr qint64 StateVersion = 2;
    // Larger than any state the limits on pending questions allow; a larger file is set aside.
    static constexpr qint64 MaxFileBytes = 1024LL * 1024 * 1024;

    explicit WorkspaceStateStore(QString path, WorkspaceStateWriteTiming timing = {}, QObject* parent = nullptr);
    ~WorkspaceStateStore() override;

    LoadResult load(Records* records, QString* problem) override;
    QString setAside(QString* error) override;
    void putQuestion(const QString& id, const QByteArray& record) override;
    void removeQuestion(const QString& id) override;
    void putClientOutputs(const QByteArray& record) override;
    void putApprovals(const QByteArray& record) override;
    bool flush(QString* error) override;

    QString path() const { return m_path; }
    const WorkspaceStateWriter* writer() const { return m_writer; }

private:
    void submit();

    QString m_path;
    WorkspaceStateWriter* m_writer = nullptr; // owned
    QStringList m_order; // question ids, in the order they came
    QHash<QString, QByteArray> m_questions;
    QByteArray m_clientOutputs = QByteArrayLiteral("[]");
    QByteArray m_approvals = QByteArrayLiteral(R"({"alwaysAllow":[],"decisions":[]})");
};
