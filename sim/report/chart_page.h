#pragma once
// Charts on bnsim's report pages (the sweep report, sensitivity's tornado page, compare's page):
// each chart is a spec (kind, title, axes with units, data) that the page's drawing code
// (sim/report/charts.js, over Chart.js from Debian's libjs-chart.js) renders when the page
// opens. Both scripts are inlined, so a page is one self-contained file and fetches nothing.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace bnsim {

// The page's scripts: Chart.js and bnsim's drawing code, inline. Write once, after the charts.
void write_chart_scripts(std::ostream& o);

// One chart of `width` x `height` pixels from `spec` (its kind and data; see charts.js), as a
// figure holding the spec; the drawing code puts the canvas beside it.
void write_chart(std::ostream& o, nlohmann::ordered_json spec, int width, int height);

// The Chart.js release the pages carry (e.g. "3.9.1"), from the library's own banner.
std::string chartjs_version();

}  // namespace bnsim
