#include "jsoneditor.h"

#include "boundedjson.h"
#include "fixedfont.h"
#include "jsonhighlighter.h"

#include <QEvent>

using nlohmann::json;

JsonEditor::JsonEditor(QWidget* parent)
    : QPlainTextEdit(parent)
    , m_highlighter(new JsonHighlighter(document()))
{
    setFont(fixedFont());
    setTabChangesFocus(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    m_highlighter->setDarkBackground(palette().color(QPalette::Base).lightness() < 128);
}

std::optional<json> JsonEditor::object(QString* problem) const
{
    const QByteArray text = toPlainText().toUtf8().trimmed();
    if (text.isEmpty())
        return json::object();
    BoundedJson::Result<json> parsed = BoundedJson::parse(text, BoundedJson::Limits::message());
    if (parsed.ok && parsed.value.is_object())
        return std::move(parsed.value);
    if (!problem)
        return std::nullopt;
    if (parsed.ok) {
        *problem = tr("the arguments must be a JSON object ({…}), not %1")
                       .arg(QString::fromLatin1(parsed.value.type_name()));
    } else if (parsed.problem == BoundedJson::Problem::Malformed) {
        // nlohmann's message names the byte; the line is what a person can find.
        const qsizetype offset = qBound(qsizetype(0), qsizetype(parsed.position) - 1, text.size());
        const int line = int(text.left(offset).count('\n')) + 1;
        *problem = tr("not valid JSON (line %1): %2")
                       .arg(line)
                       .arg(QString::fromStdString(parsed.error).section(QLatin1String(": "), -1));
    } else {
        *problem = tr("the arguments are refused: %1").arg(QString::fromStdString(parsed.error));
    }
    return std::nullopt;
}

void JsonEditor::setJson(const json& value)
{
    setPlainText(QString::fromStdString(value.dump(2)));
}

void JsonEditor::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        m_highlighter->setDarkBackground(palette().color(QPalette::Base).lightness() < 128);
        m_highlighter->rehighlight();
    }
}
