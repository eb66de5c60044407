#pragma once

#include <QFont>

// The desktop's fixed-width font at the size of the application's font: where the person (or the
// platform's theme) made the text larger, JSON, diffs and commands in a monospace pane grow with
// it, instead of staying at the platform's default size beside 14 pt labels.
QFont fixedFont();
