#include "statusnote.h"

#include <QTimer>

StatusNote::StatusNote(const QString& objectName, QWidget* parent)
    : QLabel(parent)
    , m_fadeTimer(new QTimer(this))
{
    setObjectName(objectName);
    setTextFormat(Qt::PlainText);
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    hide();
    m_fadeTimer->setSingleShot(true);
    m_fadeTimer->setInterval(NoteShownMs);
    connect(m_fadeTimer, &QTimer::timeout, this, &StatusNote::clearNote);
}

QString StatusNote::problemStyleSheet()
{
    return QStringLiteral("QLabel { color: #c01c28; }");
}

void StatusNote::showNote(const QString& text)
{
    present(text, false, true);
}

void StatusNote::showPending(const QString& text)
{
    present(text, false, false);
}

void StatusNote::showProblem(const QString& text)
{
    present(text, true, false);
}

void StatusNote::clearNote()
{
    present(QString(), false, false);
}

void StatusNote::present(const QString& text, bool problem, bool fades)
{
    setText(text);
    setStyleSheet(problem ? problemStyleSheet() : QString());
    setVisible(!text.isEmpty());
    if (fades && !text.isEmpty())
        m_fadeTimer->start();
    else
        m_fadeTimer->stop();
}
