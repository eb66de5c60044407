#include "statuswarning.h"

#include <QMessageBox>
#include <QMouseEvent>
#include <QTimer>

StatusWarning::StatusWarning(const QString& subject, QWidget* parent)
    : QLabel(parent)
    , m_subject(subject)
    , m_recoveredTimer(new QTimer(this))
{
    setTextFormat(Qt::PlainText);
    setCursor(Qt::PointingHandCursor);
    m_recoveredTimer->setSingleShot(true);
    m_recoveredTimer->setInterval(RecoveredShownMs);
    connect(m_recoveredTimer, &QTimer::timeout, this, [this] {
        if (m_state == State::Recovered)
            setState(State::Idle, QString(), QString(), QString());
    });
    hide();
}

QStringList StatusWarning::events() const
{
    QStringList lines;
    for (const Event& event : m_events)
        lines << event.time.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) + QStringLiteral("  ") + event.text;
    return lines;
}

void StatusWarning::addEvent(const QString& text)
{
    m_events.append({QDateTime::currentDateTime(), text});
    while (m_events.size() > MaxEvents)
        m_events.removeFirst();
}

void StatusWarning::setState(State state, const QString& text, const QString& colour, const QString& toolTip)
{
    m_state = state;
    setText(text);
    setToolTip(toolTip);
    setStyleSheet(
        colour.isEmpty() ? QString() : QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(colour));
    setVisible(state != State::Idle);
    if (state != State::Recovered)
        m_recoveredTimer->stop();
    Q_EMIT stateChanged(state);
}

void StatusWarning::showProblem(const QString& summary, const QString& detail)
{
    addEvent(summary + QStringLiteral(": ") + detail);
    setState(State::Problem, QStringLiteral("⚠ ") + summary, QStringLiteral("#c01c28"),
        detail + QStringLiteral("\n\n") + tr("Click for the recent events."));
}

void StatusWarning::showNotice(const QString& summary, const QString& detail)
{
    addEvent(summary + QStringLiteral(": ") + detail);
    // A notice never hides a problem that is still there; it waits in the events.
    if (m_state == State::Problem)
        return;
    // No symbol: the common fonts lack an information sign, and a box would show instead.
    setState(State::Notice, summary + QStringLiteral(" — ") + tr("click to read"), QStringLiteral("#b36b00"),
        detail + QStringLiteral("\n\n") + tr("Click to read it and the recent events."));
}

void StatusWarning::showRecovered(const QString& summary)
{
    if (m_state != State::Problem)
        return;
    addEvent(summary);
    setState(State::Recovered, QStringLiteral("✓ ") + summary, QStringLiteral("#26a269"), summary);
    m_recoveredTimer->start();
}

void StatusWarning::showDetails()
{
    auto* box = new QMessageBox(m_state == State::Problem ? QMessageBox::Warning : QMessageBox::Information, m_subject,
        toolTip().section(QStringLiteral("\n\n"), 0, 0), QMessageBox::Close, window());
    box->setObjectName(QStringLiteral("statusWarningDetails"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDetailedText(events().join(QLatin1Char('\n')));
    box->open();
    if (m_state == State::Notice)
        setState(State::Idle, QString(), QString(), QString());
}

void StatusWarning::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_state != State::Idle)
        showDetails();
    QLabel::mouseReleaseEvent(event);
}
