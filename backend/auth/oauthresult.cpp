#include "auth/oauthresult.h"

QString OAuthFailure::reasonName(Reason reason)
{
    switch (reason) {
    case Reason::Declined:
        return QStringLiteral("declined");
    case Reason::Cancelled:
        return QStringLiteral("cancelled");
    case Reason::Timeout:
        return QStringLiteral("timeout");
    case Reason::Error:
        break;
    }
    return QStringLiteral("error");
}
