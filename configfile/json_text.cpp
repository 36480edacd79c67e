#include "configfile/json_text.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "configfile/config_error.h"

namespace bnsim {

using json = nlohmann::ordered_json;

namespace {

// Thrown from the parser callback and caught below, so the callback can stop the parse.
struct Refused {
    std::string message;
};

// The path to the value being read, for messages: "summary[0].total_time".
struct Path {
    struct Level {
        bool object;
        size_t index = 0;             // arrays: the next element's index
        std::string key;              // objects: the current key
        std::vector<std::string> keys;  // objects: keys seen so far
    };
    std::vector<Level> levels;

    std::string text() const {
        std::string s;
        for (const auto& l : levels) {
            if (l.object) {
                if (!l.key.empty()) s += (s.empty() ? "" : ".") + l.key;
            } else {
                s += "[" + std::to_string(l.index) + "]";
            }
        }
        return s;
    }
    // A value ended: in an array, the next one gets the next index.
    void value_done() {
        if (!levels.empty() && !levels.back().object) ++levels.back().index;
    }
};

std::string at(const std::string& origin, const Path& p) {
    const std::string where = p.text();
    return origin + (where.empty() ? "" : ": " + where) + ": ";
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& origin, const std::string& what, int max_depth) {
    Path path;
    auto cb = [&](int depth, json::parse_event_t ev, json& parsed) {
        if (depth > max_depth)
            throw Refused{at(origin, path) + "nested deeper than " + std::to_string(max_depth) + " levels; expected " + what};
        switch (ev) {
            case json::parse_event_t::object_start: path.levels.push_back(Path::Level{true, 0, {}, {}}); break;
            case json::parse_event_t::array_start: path.levels.push_back(Path::Level{false, 0, {}, {}}); break;
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!path.levels.empty()) path.levels.pop_back();
                path.value_done();
                break;
            case json::parse_event_t::key: {
                auto& l = path.levels.back();
                const std::string& k = parsed.get_ref<const std::string&>();
                if (std::find(l.keys.begin(), l.keys.end(), k) != l.keys.end()) {
                    l.key = k;
                    throw Refused{at(origin, path) + "key given twice in one object; expected each key once"};
                }
                l.keys.push_back(k);
                l.key = k;
                break;
            }
            case json::parse_event_t::value:
                if (parsed.is_number_float() && !std::isfinite(parsed.get<double>()))
                    throw Refused{at(origin, path) + "a number out of range; expected a finite number"};
                path.value_done();
                break;
        }
        return true;
    };
    try {
        return json::parse(text, cb, true, false);
    } catch (const Refused& r) {
        throw ConfigError(r.message);
    } catch (const json::parse_error& e) {
        const size_t upto = std::min(text.size(), size_t(e.byte ? e.byte - 1 : 0));
        const long line = 1 + std::count(text.begin(), text.begin() + long(upto), '\n');
        throw ConfigError(origin + ":" + std::to_string(line) + ": JSON syntax error; expected " + what);
    } catch (const json::out_of_range&) {
        // The parser's number overflow (1e400) carries no position.
        throw ConfigError(origin + ": a number out of range (past 1.8e308); expected " + what);
    } catch (const json::exception&) {
        throw ConfigError(origin + ": not readable as JSON; expected " + what);
    }
}

}  // namespace bnsim
