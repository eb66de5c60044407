#pragma once

// ClientAnswer: the well-formed answers a person gives to a client tool, as the JSON the waiting
// client receives. The console's widgets build them; ClientTool checks them.

#include <QString>

#include <nlohmann/json.hpp>

#include "renderhint.h"

namespace ClientAnswer {

nlohmann::json connected(const QString& provider, const QString& account);
nlohmann::json notConnected(const QString& reason); // declined, cancelled or timeout
nlohmann::json confirmed(bool yes);
nlohmann::json chosen(const QString& choice);
nlohmann::json submitted(const nlohmann::json& values);
// The person would not answer (choice: {"choice": null, …}, form: {"submitted": false, …}).
nlohmann::json declined(RenderHint render);

} // namespace ClientAnswer
