#include "copybutton.h"

#include <QClipboard>
#include <QGuiApplication>

CopyButton::CopyButton(const QString& label, QWidget* parent)
    : QPushButton(label, parent)
    , m_label(label)
{
    // As wide as the wider of the two texts, so the status bar or row does not jump when it changes.
    setText(tr("Copied"));
    const int copiedWidth = sizeHint().width();
    setText(m_label);
    setMinimumWidth(qMax(copiedWidth, sizeHint().width()));

    m_restoreTimer.setSingleShot(true);
    m_restoreTimer.setInterval(1500);
    connect(&m_restoreTimer, &QTimer::timeout, this, [this] { setText(m_label); });
    connect(this, &QPushButton::clicked, this, &CopyButton::copy);
}

void CopyButton::copy()
{
    QGuiApplication::clipboard()->setText(m_copyText);
    setText(tr("Copied"));
    m_restoreTimer.start();
    Q_EMIT copied();
}
