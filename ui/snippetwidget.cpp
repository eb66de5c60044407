#include "snippetwidget.h"

#include "copybutton.h"

#include <QAbstractTextDocumentLayout>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QPlainTextEdit>

SnippetWidget::SnippetWidget(QWidget* parent)
    : QWidget(parent), m_text(new QPlainTextEdit), m_copyButton(new CopyButton(tr("Copy")))
{
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_text->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_text->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);

    // QPlainTextEdit's document layout counts its size in visual lines: fit the height to them, so a
    // wrapped command shows whole and a one-liner takes one line.
    connect(m_text->document()->documentLayout(), &QAbstractTextDocumentLayout::documentSizeChanged, this,
        &SnippetWidget::fitHeight);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_copyButton, 0, Qt::AlignTop);
}

void SnippetWidget::setTexts(const QString& displayText, const QString& copyText)
{
    m_text->setPlainText(displayText);
    m_copyButton->setCopyText(copyText);
    fitHeight();
}

void SnippetWidget::fitHeight()
{
    const int lines = qMax(1, int(m_text->document()->documentLayout()->documentSize().height()));
    const QFontMetrics metrics(m_text->font());
    m_text->setFixedHeight(
        lines * metrics.lineSpacing() + 2 * int(m_text->document()->documentMargin()) + 2 * m_text->frameWidth() + 2);
}

QString SnippetWidget::displayText() const
{
    return m_text->toPlainText();
}

QString SnippetWidget::copyText() const
{
    return m_copyButton->copyText();
}
