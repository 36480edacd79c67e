#include "sim/sensitivity/latency_band.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "sim/compare/predict.h"
#include "sim/sensitivity/uncertain_params.h"

namespace bnsim {

using json = nlohmann::ordered_json;

json latency_band(const RunConfig& cfg, const std::string& config, const Overrides& sets, double latency_ns, int jobs,
                  double timeout_s, bool estimate) {
    const auto params = uncertain_params(cfg.hw);
    std::vector<double> lat(2 * params.size(), latency_ns);
    std::vector<std::string> err(lat.size());
    parallel_for(lat.size(), jobs, [&](size_t i) {
        const auto& p = params[i / 2];
        Overrides ov = sets;
        ov.push_back(uncertain_override(p, i % 2 ? p.hi : p.lo));
        try {
            lat[i] = run_config_json(config, ov, timeout_s, nullptr, estimate).at("latency_ns").get<double>();
        } catch (const std::exception& e) {
            err[i] = e.what();
        }
    });
    json b;
    b["latency_ns"] = latency_ns;
    double lo = latency_ns, hi = latency_ns;
    json lo_d = nullptr, hi_d = nullptr, ps = json::array();
    for (size_t i = 0; i < params.size(); ++i) {
        json p{{"name", params[i].name}, {"low", params[i].lo}, {"high", params[i].hi},
               {"latency_low_ns", lat[2 * i]}, {"latency_high_ns", lat[2 * i + 1]}};
        for (int e = 0; e < 2; ++e) {
            if (!err[2 * i + size_t(e)].empty()) {
                p[e ? "error_high" : "error_low"] = err[2 * i + size_t(e)];
                continue;
            }
            const double l = lat[2 * i + size_t(e)];
            const json d{{"name", params[i].name}, {"value", e ? params[i].hi : params[i].lo}};
            if (l < lo) lo = l, lo_d = d;
            if (l > hi) hi = l, hi_d = d;
        }
        ps.push_back(p);
    }
    b["low_ns"] = lo;
    b["high_ns"] = hi;
    b["low_driver"] = lo_d;
    b["high_driver"] = hi_d;
    b["method"] = std::string("one estimated parameter at a time at each end of its declared range") +
                  (estimate ? ", each end by the screening estimate" : ", each end in full simulation");
    b["params"] = ps;
    return b;
}

void print_latency_band(const json& b, std::ostream& out) {
    auto us = [](double ns) {
        std::ostringstream o;
        o << std::fixed << std::setprecision(2) << ns / 1000 << " us";
        return o.str();
    };
    auto driver = [](const json& d) {
        if (d.is_null()) return std::string("none");
        std::ostringstream o;
        o << d["name"].get<std::string>() << "=" << d["value"].get<double>();
        return o.str();
    };
    out << "band        " << us(b["latency_ns"].get<double>()) << " in [" << us(b["low_ns"].get<double>()) << ", "
        << us(b["high_ns"].get<double>()) << "] over " << b["params"].size()
        << " estimated parameters' ranges; low end " << driver(b["low_driver"]) << ", high end "
        << driver(b["high_driver"]) << "\n";
}

}  // namespace bnsim
