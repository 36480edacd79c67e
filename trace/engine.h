#pragma once
// The instruction-issuing engines of a NeuronCore. DMAs are triggered from an
// engine's stream (Sync for hardware DGE, Pool for software DGE) but run on the DMA engines.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace bnsim {

enum class Engine : uint8_t { Sync, Act, Dve, Pool, Pe };
constexpr int kNumEngines = 5;
constexpr std::array<Engine, kNumEngines> kAllEngines{Engine::Sync, Engine::Act, Engine::Dve,
                                                      Engine::Pool, Engine::Pe};

inline const char* engine_name(Engine e) {
    switch (e) {
    case Engine::Sync: return "sync";
    case Engine::Act: return "act";
    case Engine::Dve: return "dve";
    case Engine::Pool: return "pool";
    case Engine::Pe: return "pe";
    }
    return "?";
}

inline std::optional<Engine> engine_from_name(const std::string& s) {
    for (Engine e : kAllEngines)
        if (s == engine_name(e)) return e;
    return std::nullopt;
}

}  // namespace bnsim
