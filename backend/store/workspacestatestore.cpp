#include "store/workspacestatestore.h"

#include "statejsonreader.h"

using nlohmann::json;

WorkspaceStateStore::WorkspaceStateStore(QString path, WorkspaceStateWriteTiming timing, QObject* parent)
    : InteractionState(parent)
    , m_path(std::move(path))
    , m_writer(new WorkspaceStateWriter(m_path, timing, this))
{
    // Direct: the writer emits from its own thread; whoever listens connects with a context object,
    // so the signal crosses threads there.
    connect(m_writer, &WorkspaceStateWriter::writeFailed, this, &InteractionState::writeFailed, Qt::DirectConnection);
    connect(
        m_writer, &WorkspaceStateWriter::writeRecovered, this, &InteractionState::writeRecovered, Qt::DirectConnection);
}

WorkspaceStateStore::~WorkspaceStateStore()
{
    delete m_writer; // writes the newest state and ends its thread while this store is still whole
    m_writer = nullptr;
}

InteractionState::LoadResult WorkspaceStateStore::load(Records* records, QString* problem)
{
    QByteArray contents;
    const WorkspaceStateFile::ReadStatus status = WorkspaceStateFile::read(m_path, MaxFileBytes, &contents, problem);
    if (status == WorkspaceStateFile::ReadStatus::Missing)
        return LoadResult::Empty;
    if (status == WorkspaceStateFile::ReadStatus::Unreadable)
        return LoadResult::Unreadable;
    const json state = json::parse(contents.constData(), contents.constData() + contents.size(), nullptr, false);
    contents.clear();
    if (state.is_discarded()) {
        *problem = QStringLiteral("it is not JSON");
        return LoadResult::Unreadable;
    }
    if (!state.is_object() || !state.contains("version") || !state.at("version").is_number_integer()
        || state.at("version").get<qint64>() != StateVersion) {
        *problem = QStringLiteral("it is not a version-%1 state file").arg(StateVersion);
        return LoadResult::Unreadable;
    }
    StateJsonReader reader(state, QStringLiteral("the state"), problem);
    reader.keys({"version", "pending", "clientOutputs", "approvals"});
    const json* pending = reader.array("pending");
    const json* outputs = reader.array("clientOutputs");
    const json* approvals = reader.object("approvals");
    if (!reader.ok())
        return LoadResult::Unreadable;
    // These are the records this store holds from now on: a later change writes them back as they
    // were read, beside the one that changed.
    m_order.clear();
    m_questions.clear();
    for (const json& question : *pending) {
        const auto id = question.is_object() ? question.find("id") : question.end();
        if (id == question.end() || !id->is_string()) {
            *problem = QStringLiteral("a pending question has no \"id\"");
            return LoadResult::Unreadable;
        }
        const QString key = QString::fromStdString(id->get<std::string>());
        if (!m_questions.contains(key))
            m_order.append(key);
        m_questions.insert(key, QByteArray::fromStdString(question.dump()));
    }
    m_clientOutputs = QByteArray::fromStdString(outputs->dump());
    m_approvals = QByteArray::fromStdString(approvals->dump());
    Records read;
    read.questions.assign(pending->begin(), pending->end());
    read.clientOutputs = *outputs;
    read.approvals = *approvals;
    *records = std::move(read);
    return LoadResult::Loaded;
}

QString WorkspaceStateStore::setAside(QString* error)
{
    m_order.clear();
    m_questions.clear();
    m_clientOutputs = QByteArrayLiteral("[]");
    m_approvals = QByteArrayLiteral(R"({"alwaysAllow":[],"decisions":[]})");
    return WorkspaceStateFile::setAside(m_path, error);
}

void WorkspaceStateStore::putQuestion(const QString& id, const QByteArray& record)
{
    if (!m_questions.contains(id))
        m_order.append(id);
    m_questions.insert(id, record);
    submit();
}

void WorkspaceStateStore::removeQuestion(const QString& id)
{
    if (m_questions.remove(id) == 0)
        return;
    m_order.removeOne(id);
    submit();
}

void WorkspaceStateStore::putClientOutputs(const QByteArray& record)
{
    m_clientOutputs = record;
    submit();
}

void WorkspaceStateStore::putApprovals(const QByteArray& record)
{
    m_approvals = record;
    submit();
}

bool WorkspaceStateStore::flush(QString* error)
{
    return m_writer->flush(error);
}

void WorkspaceStateStore::submit()
{
    // Records are implicitly shared: this copies pointers, and the writer thread joins the bytes.
    static const QByteArray comma = QByteArrayLiteral(",");
    QByteArrayList parts;
    parts.reserve(2 * m_order.size() + 6);
    parts << QByteArrayLiteral("{\"version\":") + QByteArray::number(StateVersion)
            + QByteArrayLiteral(",\"pending\":[");
    for (qsizetype index = 0; index < m_order.size(); ++index) {
        if (index > 0)
            parts << comma;
        parts << m_questions.value(m_order.at(index));
    }
    parts << QByteArrayLiteral("],\"clientOutputs\":") << m_clientOutputs << QByteArrayLiteral(",\"approvals\":")
          << m_approvals << QByteArrayLiteral("}\n");
    m_writer->submit(std::move(parts));
}
