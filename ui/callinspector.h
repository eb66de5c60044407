#pragma once

// CallInspector: everything about one ToolCall: who asked, the route, timing, the error, and the
// arguments, response and request as pretty-printed, coloured JSON, plus the details its tool
// attached (a Details tab, shown only for calls that have them). Shows a value, so it keeps
// showing a call after the call leaves the live log; setCall() with the same id refreshes in place.
// The developer's actions (buttons, and actions for menus and shortcuts) copy the arguments, the
// response or the request as pretty JSON, or the call as a curl script (CurlCommand), to the
// clipboard; they wait for the whole call while only a preview is shown. A Timeline tab, shown only
// for calls that have one, lists the notifications the server sent about the call while it ran and,
// apart from them, the steps Switchboard noted (CallSteps): the life of the task that carries the
// call and its input_required rounds. A 2026-07-28 call shows its revision and trace id, a task's
// call its task and how it stands, and the retry of an input_required call the call it answers.
// Stays responsive for bodies of any size: large bodies are formatted on a worker thread (stale work
// is cancelled when the selection changes), their text is added a page per event-loop iteration,
// and only the first MaxHighlightedChars are coloured.

#include "toolcall.h"

#include <QFuture>
#include <QUrl>
#include <QWidget>

class JsonHighlighter;
class QAction;
class QLabel;
class QPushButton;
class QPlainTextEdit;
class QStackedWidget;
class QTabWidget;
class QTimer;
class ReplayBar;

class CallInspector : public QWidget
{
    Q_OBJECT
public:
    explicit CallInspector(QWidget* parent = nullptr);
    ~CallInspector() override;

    bool hasCall() const { return m_hasCall; }
    const ToolCall& call() const { return m_call; }
    // True when the bodies shown are the live log's previews rather than the whole call.
    bool isPreview() const { return m_preview; }
    // Replay and Edit and resend, and the link to the call a replay repeats.
    ReplayBar* replayBar() const { return m_replayBar; }
    // True while a pane's text is being formatted or added page by page.
    bool isRendering() const;

    // The note over a preview: how much of the request and of the response is shown, and, while
    // `loading`, that the whole call is on its way from history.
    static QString previewNote(qint64 shownBytes, qint64 requestBytes, qint64 responseBytes, bool loading);
    // The note over a call history keeps only the start of (HistoryWriter::keptPart).
    static QString keptInPartNote(const ToolCall& call);

    // Copy actions on the shown call, for the call log's context menu and the menu bar: arguments
    // (Ctrl+Shift+J), response, request, and as curl (Ctrl+Shift+C); shortcuts work in this window.
    QAction* copyArgumentsAction() const { return m_copyArgumentsAction; }
    QAction* copyResponseAction() const { return m_copyResponseAction; }
    QAction* copyRequestAction() const { return m_copyRequestAction; }
    QAction* copyCurlAction() const { return m_copyCurlAction; }
    QList<QAction*> copyActions() const;
    // Where "Copy as curl" sends the call, and whether it must carry the token (as $SWITCHBOARD_TOKEN).
    void setServer(const QUrl& url, bool tokenRequired);
    // What the Timeline tab shows for ToolCall::timeline: a line per entry, its time since the call
    // started, then what it said: a notification sent on the wire as it was sent, a step of
    // Switchboard's own ([task], [input]) in words. A client's run of polls is one line.
    static QString timelineText(const QByteArray& timeline);

    // Pretty-printed JSON when `bytes` parse, otherwise the raw text.
    static QString prettyJson(const QByteArray& bytes);
    // A call's details (a JSON object) as sections, one per member in the tool's order: a heading,
    // then a string member's text as it is (stdout, stderr keep their lines) or any other value as
    // pretty-printed JSON. Anything that is not an object is shown as prettyJson would.
    static QString detailsText(const QByteArray& bytes);
    // Bodies up to this size are formatted at once; larger ones on a worker thread.
    static constexpr qsizetype SyncFormatBytes = 64 * 1024;
    // Characters added to a pane per event-loop iteration.
    static constexpr qsizetype PageChars = 32 * 1024;
    // Only this much of a pane's text is coloured: highlighting megabytes would stall the GUI.
    static constexpr qsizetype MaxHighlightedChars = 256 * 1024;
    // Longer lines are broken for display: laying out one line of megabytes takes seconds.
    static constexpr qsizetype MaxLineChars = 8 * 1024;
    // A pane shows at most this much and says how much it leaves out.
    static constexpr qsizetype MaxShownChars = 8 * 1024 * 1024;
    // The error label shows at most this much (the tooltip and history have the rest).
    static constexpr qsizetype MaxErrorChars = 2000;

public Q_SLOTS:
    // Shows a whole call.
    void setCall(const ToolCall& call);
    // Shows the live log's preview of a call whose bodies were cut, with a note (rich text; a link
    // in it asks for the whole call through fullCallRequested).
    void setCallPreview(const ToolCall& preview, const QString& note);
    // Changes the note over a preview (empty hides it).
    void setPreviewNote(const QString& note);
    void clear();
    // In an area shorter than the inspector (a short window, where it scrolls), the placeholder
    // shown with no call selected sits at the top, where the area shows it, not in the middle of
    // the inspector's least height, out of sight.
    void setPlaceholderAtTop(bool atTop);

Q_SIGNALS:
    void fullCallRequested(qint64 callId);
    // The person followed a link to another call (the one an input_required retry answers).
    void showCallRequested(qint64 callId);
    // A copy action put `what` ("the arguments", "a curl command") on the clipboard.
    void copied(const QString& what);
    // Every pane shows its whole text.
    void renderingFinished();

protected:
    void changeEvent(QEvent* event) override;

private:
    enum class Format {
        Json, // pretty-printed when it parses
        Arguments, // the request's arguments, pretty-printed
        Raw, // a preview: shown as it is
        Details, // the call's details, as detailsText() gives them
        Timeline, // the call's timeline, as timelineText() gives them
    };
    struct Pane
    {
        QPlainTextEdit* edit = nullptr;
        JsonHighlighter* highlighter = nullptr;
        QByteArray shown; // what the pane shows, so a refresh with the same bytes keeps the scroll position
        Format shownFormat = Format::Json;
        quint64 generation = 0; // of the latest text asked for; older results are dropped
        QFuture<QString> formatting;
        // From the start of background formatting until its result is applied (or dropped): the
        // future can have finished while its result still waits in the event queue.
        bool awaitingResult = false;
        QString pending; // formatted text still to be added, from pendingOffset
        qsizetype pendingOffset = 0;
    };

    Pane createPane(const QString& objectName);
    void showCall(const ToolCall& call, bool preview);
    void showInPane(Pane& pane, const QByteArray& bytes, Format format, const QString& emptyText);
    void startText(Pane& pane, QString text);
    void addPage(Pane* first = nullptr);
    void updateHeader();
    void updateSteps();
    void createCopyActions();
    void updateCopyActions();
    void copyText(const QString& text, const QString& what);
    void updateHighlighterColours();
    static QString formatText(const QByteArray& bytes, Format format);
    static QString fitForDisplay(QString text);

    ToolCall m_call;
    bool m_hasCall = false;
    bool m_preview = false;
    bool m_keptInPart = false; // a call from history whose bodies history keeps only the start of
    quint64 m_nextGeneration = 0;

    QStackedWidget* m_stack = nullptr;
    QLabel* m_toolLabel = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_statusMeaningLabel = nullptr;
    QLabel* m_routeLabel = nullptr;
    QLabel* m_clientLabel = nullptr;
    QLabel* m_sessionCaption = nullptr;
    QLabel* m_sessionLabel = nullptr;
    QLabel* m_protocolCaption = nullptr;
    QLabel* m_protocolLabel = nullptr;
    QLabel* m_traceCaption = nullptr;
    QLabel* m_traceLabel = nullptr;
    QLabel* m_taskCaption = nullptr;
    QLabel* m_taskLabel = nullptr;
    QLabel* m_inputCaption = nullptr;
    QLabel* m_inputLabel = nullptr;
    QLabel* m_startedLabel = nullptr;
    QLabel* m_durationLabel = nullptr;
    QLabel* m_errorCaption = nullptr;
    QLabel* m_errorLabel = nullptr;
    QLabel* m_decisionCaption = nullptr;
    QLabel* m_decisionLabel = nullptr;
    QLabel* m_previewNote = nullptr;
    ReplayBar* m_replayBar = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTimer* m_pageTimer = nullptr;
    Pane m_arguments;
    Pane m_response;
    Pane m_request;
    Pane m_details;
    Pane m_timeline;

    QUrl m_serverUrl;
    bool m_tokenRequired = true;
    QAction* m_copyArgumentsAction = nullptr;
    QAction* m_copyResponseAction = nullptr;
    QAction* m_copyRequestAction = nullptr;
    QAction* m_copyCurlAction = nullptr;
    QPushButton* m_copyButton = nullptr;
    QPushButton* m_curlButton = nullptr;
    QLabel* m_copiedLabel = nullptr;
    QTimer* m_copiedTimer = nullptr;
};
