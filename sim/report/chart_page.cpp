#include "sim/report/chart_page.h"

#include <ostream>
#include <regex>

namespace bnsim {

// chart_scripts.cpp, generated at build time by cmake/embed_charts.cmake.
const std::string& chartjs_library();
const char* chart_drawing_code();

void write_chart_scripts(std::ostream& o) {
    o << "<script>/* Chart.js " << chartjs_version() << ", MIT License, from Debian's libjs-chart.js */\n"
      << chartjs_library() << "\n</script>\n<script>\n" << chart_drawing_code() << "</script>\n";
}

void write_chart(std::ostream& o, nlohmann::ordered_json spec, int width, int height) {
    spec["width"] = width;
    spec["height"] = height;
    // Inside <script>, "</script" would end the element: every '<' is written as \u003c, which
    // JSON reads back as the same character.
    std::string text = spec.dump();
    std::string safe;
    safe.reserve(text.size());
    for (char c : text) {
        if (c == '<') safe += "\\u003c";
        else safe += c;
    }
    o << "<figure class=\"chart\"><script type=\"application/json\" class=\"bnsim-chart\">" << safe
      << "</script></figure>\n";
}

std::string chartjs_version() {
    static const std::string v = [] {
        std::smatch m;
        const std::string head = chartjs_library().substr(0, 200);
        return std::regex_search(head, m, std::regex(R"(Chart\.js v([0-9.]+))")) ? m[1].str() : std::string("unknown");
    }();
    return v;
}

}  // namespace bnsim
