#pragma once

// JsonEditor: a plain-text editor for JSON the person types (a tool's arguments), coloured as the
// inspector colours JSON, in a fixed-pitch font, with Tab moving the focus on rather than typing
// a tab. object() says whether the text is a JSON object, and if not why, before anything is sent.

#include <QPlainTextEdit>

#include <nlohmann/json.hpp>

#include <optional>

class JsonHighlighter;

class JsonEditor : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit JsonEditor(QWidget* parent = nullptr);

    // The text as a JSON object; nullopt with `problem` saying where it fails (or that it is JSON
    // but not an object). Empty text is an empty object.
    std::optional<nlohmann::json> object(QString* problem) const;
    // Shows `value` pretty-printed.
    void setJson(const nlohmann::json& value);

protected:
    void changeEvent(QEvent* event) override;

private:
    JsonHighlighter* m_highlighter;
};
