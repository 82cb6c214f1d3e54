// A ruleset as a C++ OpenSpiel game: one generic game whose states step a ruleset's native module with no Python
// in a move (adapters/openspiel_native.py builds this file once per OpenSpiel and compiler, and registers each
// ruleset by handing it the module's step functions).
//
// The questions every loop asks (CurrentPlayer, LegalActions, ChanceOutcomes, IsTerminal, Returns, Clone, and
// DoApplyAction) are answered from the native state.  What is not hot (action strings, ToString, observation and
// information-state strings and tensors) and every step the module gives up on are asked of Python through one
// callback, with the state's history: a seed fixes a whole game, so the history is the state.  A state whose step
// the module gave up on (a rule error the Python engine raises, an int past 64 bits, a budget) is held in Python from
// then on: each of its questions goes through the callback, answered by the Python adapter's own code.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"
#include "open_spiel/observer.h"

extern "C" {
typedef struct rp_state rp_state;
#include "rp_api.h"
}

namespace {

using open_spiel::Action;
using open_spiel::Player;

constexpr int32_t kBailIllegal = 5;  // the module refused the move before it changed anything (rp.h RP_BAIL_ILLEGAL)
constexpr int64_t kFailed = INT64_MIN;  // what the callback returns when Python raised

// What the callback is asked (adapters/openspiel_native.py `_Answers.answer`).
enum Ask : int32_t {
  kStep = 0,          // make `action` after `history` (raising the engine's error if it is refused)
  kPlayer = 1,        // who moves
  kLegal = 2,         // the legal actions, sorted (into int64 `out`)
  kOutcomes = 3,            // the chance outcomes, sorted: action and probability pairs (into double `out`)
  kReturns = 4,       // the returns (into double `out`)
  kActionString = 5,  // text
  kToString = 6,
  kObservationString = 7,
  kInformationString = 8,
  kObservationTensor = 9,   // float `out`
  kInformationTensor = 10,
};

// The callback: answers `kind` about the state after `history`; returns a count, a player or 0, kFailed when Python
// raised (then `*text` is the error's message), and for the text kinds sets `*text` to the answer (valid until the
// next call).
typedef int64_t (*rpx_ask_fn)(int64_t game, int32_t kind, int32_t player, int64_t action, const int64_t *history,
                              int64_t n, void *out, int64_t cap, const char **text);

}  // namespace

extern "C" {
// One ruleset's game: its native module's functions, OpenSpiel's headers for it and the Python callback.
typedef struct rpx_spec {
  int64_t id;  // the game's number in Python (the callback's first argument)
  // the native module (csrc/rp_api.h), through cffi's `ffi.addressof(lib, name)`
  int64_t (*begin)(rp_io *, uint64_t);
  int64_t (*move)(rp_io *, int64_t);
  rp_state *(*clone)(rp_state *);
  void (*free)(rp_state *);
  int64_t (*legal)(rp_state *, int32_t *, int64_t, rp_error *);
  int (*weights)(rp_state *, double *, rp_error *);
  int (*returns)(rp_state *, double *, rp_error *);
  rpx_ask_fn ask;
  // OpenSpiel's GameType
  const char *short_name, *long_name;
  int32_t dynamics, chance_mode, information, utility, reward_model, max_num_players, min_num_players;
  int32_t provides_information_state_string, provides_information_state_tensor, provides_observation_string,
      provides_observation_tensor, default_loadable, provides_factored_observation_string, is_concrete;
  // OpenSpiel's GameInfo
  int32_t num_distinct_actions, max_chance_outcomes, num_players, max_game_length;
  double min_utility, max_utility, utility_sum;
  int32_t has_utility_sum;
  // the game
  int64_t seeds;             // outcomes of the root's seed draw (0: no draw, seed 0)
  int64_t max_chance_listed; // more outcomes than this at a chance node: the Python engine answers (it refuses)
  int64_t observation_size;  // the observation vector
  int64_t history_rows, history_width;  // the information state's moves as seen
} rpx_spec;

int rpx_register(const rpx_spec *spec, char *error, int64_t cap);
}

namespace {

// The spec copied, with its strings owned.
struct Spec {
  rpx_spec c;
  std::string short_name, long_name;
};

constexpr Player kChancePlayer = open_spiel::kChancePlayerId;
constexpr Player kTerminalPlayer = open_spiel::kTerminalPlayerId;

[[noreturn]] void Fail(const char *text) { open_spiel::SpielFatalError(text ? text : "ruleplay: unknown error"); }

class RuleplayCxxState : public open_spiel::State {
 public:
  RuleplayCxxState(std::shared_ptr<const open_spiel::Game> game, std::shared_ptr<const Spec> spec)
      : State(std::move(game)), spec_(std::move(spec)) {
    io_.S = nullptr;
    io_.more = nullptr;
    io_.cap = 0;
    if (spec_->c.seeds == 0) Begin(0);
  }

  RuleplayCxxState(const RuleplayCxxState &other)
      : State(other), spec_(other.spec_), held_(other.held_), player_(other.player_), moves_(other.moves_),
        sorted_(other.sorted_) {
    io_.S = other.io_.S ? spec_->c.clone(other.io_.S) : nullptr;
    if (other.io_.S && !io_.S) Fail("ruleplay: out of memory cloning a native state");
    io_.more = nullptr;
    io_.cap = 0;
  }

  RuleplayCxxState &operator=(const RuleplayCxxState &) = delete;  // a state owns its native state

  ~RuleplayCxxState() override {
    if (io_.S) spec_->c.free(io_.S);
  }

  Player CurrentPlayer() const override {
    if (held_) return static_cast<Player>(Ask(kPlayer, 0, 0, nullptr, 0));
    return player_;
  }

  bool IsTerminal() const override { return CurrentPlayer() == kTerminalPlayer; }

  std::vector<Action> LegalActions() const override {
    if (held_) return AskActions();
    if (player_ == kChancePlayer) {
      std::vector<Action> actions;
      for (const auto &[action, p] : ChanceOutcomes()) actions.push_back(action);
      return actions;
    }
    if (player_ == kTerminalPlayer) return {};
    return sorted_;
  }

  open_spiel::ActionsAndProbs ChanceOutcomes() const override {
    if (held_ || !io_.S || static_cast<int64_t>(moves_.size()) > spec_->c.max_chance_listed) return AskChance();
    std::vector<double> weights(std::max<size_t>(moves_.size(), 1));
    rp_error err;
    if (!spec_->c.weights(io_.S, weights.data(), &err)) return AskChance();
    double total = 0.0;
    for (size_t k = 0; k < moves_.size(); k++) total += weights[k];
    open_spiel::ActionsAndProbs outcomes;
    outcomes.reserve(moves_.size());
    for (size_t k = 0; k < moves_.size(); k++) outcomes.emplace_back(moves_[k], weights[k] / total);
    std::sort(outcomes.begin(), outcomes.end());
    return outcomes;
  }

  std::vector<double> Returns() const override {
    std::vector<double> out(spec_->c.num_players, 0.0);
    if (held_) {
      Ask(kReturns, 0, 0, out.data(), static_cast<int64_t>(out.size()));
      return out;
    }
    if (!io_.S) return out;  // the seed is not drawn yet
    rp_error err;
    if (!spec_->c.returns(io_.S, out.data(), &err)) Ask(kReturns, 0, 0, out.data(), static_cast<int64_t>(out.size()));
    return out;
  }

  std::unique_ptr<open_spiel::State> Clone() const override {
    return std::unique_ptr<open_spiel::State>(new RuleplayCxxState(*this));
  }

  std::string ActionToString(Player player, Action action) const override {
    return AskText(kActionString, player, action);
  }
  std::string ToString() const override { return AskText(kToString, 0, 0); }
  std::string ObservationString(Player player) const override { return AskText(kObservationString, player, 0); }
  std::string InformationStateString(Player player) const override {
    return AskText(kInformationString, player, 0);
  }
  void ObservationTensor(Player player, absl::Span<float> values) const override {
    AskTensor(kObservationTensor, player, values);
  }
  void InformationStateTensor(Player player, absl::Span<float> values) const override {
    AskTensor(kInformationTensor, player, values);
  }

  // Used by the observer too.
  std::string AskText(int32_t kind, Player player, Action action) const {
    const char *text = nullptr;
    if (AskRaw(kind, player, action, nullptr, 0, &text) == kFailed) Fail(text);
    return std::string(text ? text : "");
  }
  void AskTensor(int32_t kind, Player player, absl::Span<float> values) const {
    std::fill(values.begin(), values.end(), 0.0f);
    Ask(kind, player, 0, values.data(), static_cast<int64_t>(values.size()));
  }

 protected:
  void DoApplyAction(Action action) override {
    if (held_) {
      Ask(kStep, 0, action, nullptr, 0);
      return;
    }
    int64_t step;
    if (!io_.S) {  // the root: its outcome is the game's seed
      if (action < 0 || action >= spec_->c.seeds) Refused(action);
      Begin(static_cast<uint64_t>(action));
      return;
    }
    if (action < 0 || action >= spec_->c.num_distinct_actions) Refused(action);
    step = spec_->c.move(&io_, action);
    if (step < 0) {
      if (io_.err.code == kBailIllegal) Refused(action);  // unchanged: the Python engine says why
      HandOver(action);
      return;
    }
    Stepped(step);
  }

 private:
  // A new game of seed `seed`, natively; held in Python when the module gives up on setting it up.
  void Begin(uint64_t seed) {
    int64_t step = spec_->c.begin(&io_, seed);
    if (step < 0) {
      if (io_.S) spec_->c.free(io_.S);
      io_.S = nullptr;
      held_ = true;
      if (spec_->c.seeds) Ask(kStep, 0, static_cast<Action>(seed), nullptr, 0);
      return;
    }
    Stepped(step);
  }

  // What a step reports: the legal moves (in `io_.legal`, or asked for when they did not fit) and who moves.
  void Stepped(int64_t step) {
    int64_t n = step >> 5;
    player_ = static_cast<Player>((step & 31) - 4);
    const int32_t *legal = io_.legal;
    std::vector<int32_t> more;
    if (n > static_cast<int64_t>(sizeof io_.legal / sizeof io_.legal[0])) {
      more.resize(n);
      rp_error err;
      if (spec_->c.legal(io_.S, more.data(), n, &err) != n) {  // the Python engine lists them (or raises)
        HandOverListing();
        return;
      }
      legal = more.data();
    }
    moves_.assign(legal, legal + n);
    if (player_ >= 0) {
      sorted_.assign(legal, legal + n);
      std::sort(sorted_.begin(), sorted_.end());
    } else {
      sorted_.clear();
    }
  }

  // `action` refused: the Python engine raises its own error for it (the state is unchanged).
  [[noreturn]] void Refused(Action action) const {
    const char *text = nullptr;
    AskRaw(kStep, 0, action, nullptr, 0, &text);
    Fail(text ? text : "ruleplay: a refused move was made by the Python engine");
  }

  // A step the module gave up on: made by the Python engine from the history; this state is held in Python from now
  // on (as it was before the step, when the Python engine refuses it too).
  void HandOver(Action action) {
    if (io_.S) spec_->c.free(io_.S);
    io_.S = nullptr;
    held_ = true;
    Ask(kStep, 0, action, nullptr, 0);
  }

  void HandOverListing() {
    if (io_.S) spec_->c.free(io_.S);
    io_.S = nullptr;
    held_ = true;
  }

  // The callback, with this state's history (the moves before a step being made).
  int64_t AskRaw(int32_t kind, Player player, Action action, void *out, int64_t cap, const char **text) const {
    const std::vector<Action> history = State::History();
    static_assert(sizeof(Action) == sizeof(int64_t), "OpenSpiel's Action is an int64");
    return spec_->c.ask(spec_->c.id, kind, player, action, reinterpret_cast<const int64_t *>(history.data()),
                        static_cast<int64_t>(history.size()), out, cap, text);
  }

  int64_t Ask(int32_t kind, Player player, Action action, void *out, int64_t cap) const {
    const char *text = nullptr;
    int64_t got = AskRaw(kind, player, action, out, cap, &text);
    if (got == kFailed) Fail(text);
    return got;
  }

  std::vector<Action> AskActions() const {
    std::vector<int64_t> out(spec_->c.num_distinct_actions + spec_->c.max_chance_outcomes + 1);
    int64_t n = Ask(kLegal, 0, 0, out.data(), static_cast<int64_t>(out.size()));
    if (n > static_cast<int64_t>(out.size())) {
      out.resize(n);
      n = Ask(kLegal, 0, 0, out.data(), n);
    }
    return std::vector<Action>(out.begin(), out.begin() + n);
  }

  open_spiel::ActionsAndProbs AskChance() const {
    int64_t cap = std::max<int64_t>(spec_->c.max_chance_outcomes, 1);
    std::vector<double> out(2 * cap);
    int64_t n = Ask(kOutcomes, 0, 0, out.data(), cap);
    if (n > cap) {
      out.resize(2 * n);
      n = Ask(kOutcomes, 0, 0, out.data(), n);
    }
    open_spiel::ActionsAndProbs outcomes;
    for (int64_t k = 0; k < n; k++) outcomes.emplace_back(static_cast<Action>(out[2 * k]), out[2 * k + 1]);
    return outcomes;
  }

  std::shared_ptr<const Spec> spec_;
  mutable rp_io io_;                 // the native state and what its steps report
  bool held_ = false;                // held in Python (the module gave up on a step of it)
  Player player_ = kChancePlayer;          // who moves (the seed-drawing root: chance)
  std::vector<int32_t> moves_;       // the legal moves as the module listed them (chance: in its order)
  std::vector<Action> sorted_;       // a seat's legal moves, sorted
};

// One seat's view, as adapters/openspiel_game.py's Observer gives it: the observation vector, and with perfect recall
// the last moves as seen, in two pieces named as there; strings as the states give them.
class RuleplayObserver : public open_spiel::Observer {
 public:
  RuleplayObserver(std::shared_ptr<const Spec> spec, bool perfect_recall)
      : Observer(true, true), spec_(std::move(spec)), perfect_recall_(perfect_recall) {}

  void WriteTensor(const open_spiel::State &state, int player, open_spiel::Allocator *allocator) const override {
    const auto &ours = dynamic_cast<const RuleplayCxxState &>(state);
    int64_t size = spec_->c.observation_size, rows = spec_->c.history_rows, width = spec_->c.history_width;
    std::vector<float> values(size + (perfect_recall_ ? rows * width : 0));
    ours.AskTensor(perfect_recall_ ? kInformationTensor : kObservationTensor, player, absl::MakeSpan(values));
    auto observation = allocator->Get("observation", {static_cast<int>(size)});
    std::copy(values.begin(), values.begin() + size, observation.data().begin());
    if (perfect_recall_) {
      auto history = allocator->Get("history", {static_cast<int>(rows), static_cast<int>(width)});
      std::copy(values.begin() + size, values.end(), history.data().begin());
    }
  }

  std::string StringFrom(const open_spiel::State &state, int player) const override {
    const auto &ours = dynamic_cast<const RuleplayCxxState &>(state);
    return ours.AskText(perfect_recall_ ? kInformationString : kObservationString, player, 0);
  }

 private:
  std::shared_ptr<const Spec> spec_;
  bool perfect_recall_;
};

class RuleplayCxxGame : public open_spiel::Game {
 public:
  RuleplayCxxGame(const open_spiel::GameType &type, const open_spiel::GameParameters &params,
                  std::shared_ptr<const Spec> spec)
      : Game(type, params), spec_(std::move(spec)) {}

  int NumDistinctActions() const override { return spec_->c.num_distinct_actions; }
  std::unique_ptr<open_spiel::State> NewInitialState() const override {
    return std::unique_ptr<open_spiel::State>(new RuleplayCxxState(shared_from_this(), spec_));
  }
  int MaxChanceOutcomes() const override { return spec_->c.max_chance_outcomes; }
  int NumPlayers() const override { return spec_->c.num_players; }
  double MinUtility() const override { return spec_->c.min_utility; }
  double MaxUtility() const override { return spec_->c.max_utility; }
  absl::optional<double> UtilitySum() const override {
    if (spec_->c.has_utility_sum) return spec_->c.utility_sum;
    return absl::nullopt;
  }
  int MaxGameLength() const override { return spec_->c.max_game_length; }
  std::vector<int> ObservationTensorShape() const override {
    return {static_cast<int>(spec_->c.observation_size)};
  }
  std::vector<int> InformationStateTensorShape() const override {
    return {static_cast<int>(spec_->c.observation_size + spec_->c.history_rows * spec_->c.history_width)};
  }

  std::shared_ptr<open_spiel::Observer> MakeObserver(
      absl::optional<open_spiel::IIGObservationType> iig_obs_type,
      const open_spiel::GameParameters &params) const override {
    if (!params.empty()) Fail("ruleplay observers take no parameters");
    open_spiel::IIGObservationType type = iig_obs_type.value_or(open_spiel::kDefaultObsType);
    using open_spiel::PrivateInfoType;
    if (!type.public_info || type.private_info == PrivateInfoType::kNone ||
        (type.private_info == PrivateInfoType::kAllPlayers &&
         GetType().information != open_spiel::GameType::Information::kPerfectInformation)) {
      Fail("ruleplay observers show one seat's own view (public_info=True, private_info=SINGLE_PLAYER); "
           "public-only and all-seeing observers of a game with hidden information are not provided");
    }
    return std::make_shared<RuleplayObserver>(spec_, type.perfect_recall);
  }

 private:
  std::shared_ptr<const Spec> spec_;
};

}  // namespace

extern "C" int rpx_register(const rpx_spec *given, char *error, int64_t cap) {
  try {
    auto spec = std::make_shared<Spec>();
    spec->c = *given;
    spec->short_name = given->short_name;
    spec->long_name = given->long_name;
    spec->c.short_name = spec->short_name.c_str();
    spec->c.long_name = spec->long_name.c_str();
    open_spiel::GameType type;
    type.short_name = spec->short_name;
    type.long_name = spec->long_name;
    type.dynamics = static_cast<open_spiel::GameType::Dynamics>(given->dynamics);
    type.chance_mode = static_cast<open_spiel::GameType::ChanceMode>(given->chance_mode);
    type.information = static_cast<open_spiel::GameType::Information>(given->information);
    type.utility = static_cast<open_spiel::GameType::Utility>(given->utility);
    type.reward_model = static_cast<open_spiel::GameType::RewardModel>(given->reward_model);
    type.max_num_players = given->max_num_players;
    type.min_num_players = given->min_num_players;
    type.provides_information_state_string = given->provides_information_state_string;
    type.provides_information_state_tensor = given->provides_information_state_tensor;
    type.provides_observation_string = given->provides_observation_string;
    type.provides_observation_tensor = given->provides_observation_tensor;
    type.parameter_specification = {};
    type.default_loadable = given->default_loadable;
    type.provides_factored_observation_string = given->provides_factored_observation_string;
    type.is_concrete = given->is_concrete;
    std::shared_ptr<const Spec> shared = spec;
    open_spiel::GameRegisterer::RegisterGame(
        type, [type, shared](const open_spiel::GameParameters &params) -> std::shared_ptr<const open_spiel::Game> {
          return std::shared_ptr<const open_spiel::Game>(new RuleplayCxxGame(type, params, shared));
        });
    return 1;
  } catch (const std::exception &err) {
    std::snprintf(error, static_cast<size_t>(cap), "%s", err.what());
    return 0;
  }
}
