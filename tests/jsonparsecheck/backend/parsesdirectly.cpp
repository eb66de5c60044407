// Not built: what scripts/check-json-parsers.sh must refuse (CTest check_json_parsers_refuses runs it
// on this folder and expects it to fail), beside a SAX scan it must let through.

#include <nlohmann/json.hpp>

nlohmann::json parsedDirectly(const std::string& text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

bool scanned(const std::string& text, nlohmann::json_sax<nlohmann::json>* scanner)
{
    // json-parse-check: allowed, a scan that builds nothing
    return nlohmann::json::sax_parse(text, scanner);
}
