#include "snippetwidget.h"

#include "copybutton.h"
#include "fixedfont.h"

#include <QHBoxLayout>
#include <QLabel>

SnippetWidget::SnippetWidget(QWidget* parent)
    : QWidget(parent)
    , m_text(new QLabel)
    , m_copyButton(new CopyButton(tr("Copy")))
{
    // A word-wrapped label rather than a text edit: labels report their height for a given width,
    // so a long command wraps and shows whole, with no scroll bar hiding a line.
    m_text->setObjectName(QStringLiteral("snippetText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_text->setFont(fixedFont());
    m_text->setFrameShape(QFrame::StyledPanel);
    m_text->setBackgroundRole(QPalette::Base);
    m_text->setAutoFillBackground(true);
    m_text->setMargin(5);
    m_text->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_copyButton, 0, Qt::AlignTop);
}

void SnippetWidget::setTexts(const QString& displayText, const QString& copyText)
{
    m_text->setText(displayText);
    m_copyButton->setCopyText(copyText);
}

QString SnippetWidget::displayText() const
{
    return m_text->text();
}

QString SnippetWidget::copyText() const
{
    return m_copyButton->copyText();
}
