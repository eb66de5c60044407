#include "transport/printabletext.h"

namespace {

// Every character that needs it is in the Basic Multilingual Plane, so UTF-16 code units suffice.
bool needsEscape(char16_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) // C0, DEL, C1 (CSI and friends)
        || c == 0x2028 || c == 0x2029 // line and paragraph separators
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) // bidirectional overrides
        || c == 0x200e || c == 0x200f || c == 0x061c || c == 0xfeff || c == u'\\'; // marks, BOM, the escape
}

QByteArray escape(char16_t c)
{
    switch (c) {
    case u'\\':
        return QByteArrayLiteral("\\\\");
    case u'\n':
        return QByteArrayLiteral("\\n");
    case u'\r':
        return QByteArrayLiteral("\\r");
    case u'\t':
        return QByteArrayLiteral("\\t");
    default:
        break;
    }
    if (c < 0x80)
        return "\\x" + QByteArray::number(uint(c), 16).rightJustified(2, '0');
    return "\\u{" + QByteArray::number(uint(c), 16) + '}';
}

} // namespace

QByteArray PrintableText::escaped(QStringView text)
{
    QByteArray out;
    qsizetype plainFrom = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (!needsEscape(c))
            continue;
        out += text.mid(plainFrom, i - plainFrom).toUtf8() + escape(c);
        plainFrom = i + 1;
    }
    if (plainFrom == 0)
        return text.toUtf8(); // the common case: nothing to escape
    return out + text.mid(plainFrom).toUtf8();
}
