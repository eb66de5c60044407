#pragma once

// StatusWarning: a status-bar label for one thing that can go wrong in the background (history,
// the workspace state). A problem shows in red and stays until it is resolved; a notice (something
// to read, such as calls left out of history) shows in amber until the person has looked at it; a
// recovery shows briefly. Hover shows the latest detail; a click opens the recent events.

#include <QDateTime>
#include <QLabel>
#include <QList>

class QTimer;

class StatusWarning : public QLabel
{
    Q_OBJECT
public:
    enum class State {
        Idle, // nothing to say: hidden
        Problem,
        Notice,
        Recovered,
    };

    // `subject` names what this label watches in its event list ("History", "Workspace state").
    explicit StatusWarning(const QString& subject, QWidget* parent = nullptr);

    State state() const { return m_state; }
    // The recent events, oldest first, one line each with its local time.
    QStringList events() const;

    static constexpr int RecoveredShownMs = 10'000;
    static constexpr int MaxEvents = 50;

public Q_SLOTS:
    // `summary` is the label's short text, `detail` the backend's message.
    void showProblem(const QString& summary, const QString& detail);
    // Shown until the person opens the details (or a problem replaces it).
    void showNotice(const QString& summary, const QString& detail);
    // Ends a problem; says so for RecoveredShownMs. Nothing to say when there was no problem.
    void showRecovered(const QString& summary);
    // Opens the recent events; a notice counts as read.
    void showDetails();

Q_SIGNALS:
    void stateChanged(State state);

protected:
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    struct Event
    {
        QDateTime time;
        QString text;
    };
    void addEvent(const QString& text);
    void setState(State state, const QString& text, const QString& colour, const QString& toolTip);

    QString m_subject;
    State m_state = State::Idle;
    QList<Event> m_events;
    QTimer* m_recoveredTimer;
};
