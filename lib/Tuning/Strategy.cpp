//===- Strategy.cpp - Search strategies over a schedule's knobs -----------===//

#include "tessel/Tuning/Strategy.h"

#include <algorithm>
#include <cmath>

using namespace tessel;

std::vector<Candidate> SearchStrategy::propose(unsigned count) {
  std::vector<Candidate> batch;
  // The first candidate (startFrom's, else the schedule's defaults) comes
  // before any the strategy picks, unless it was observed or excluded.
  if (!startOffered && count > 0) {
    startOffered = true;
    Candidate first = start ? *start : space.defaults();
    if (!seen(first)) {
      proposed.insert(first);
      batch.push_back(first);
    }
  }
  while (batch.size() < count) {
    std::optional<Candidate> c = next();
    if (!c)
      break;
    proposed.insert(*c);
    batch.push_back(*c);
  }
  return batch;
}

void SearchStrategy::observe(const Candidate &candidate, double cost) {
  proposed.insert(candidate);
  history.push_back({candidate, cost});
}

std::optional<Candidate> SearchStrategy::randomUnseen() {
  uint64_t size = space.size();
  if (proposed.size() >= size)
    return std::nullopt;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    Candidate c(space.knobs().size());
    for (auto [i, knob] : llvm::enumerate(space.knobs()))
      c[i] = std::uniform_int_distribution<unsigned>(0, knob.options.size() -
                                                            1)(rng);
    if (!seen(c))
      return c;
  }
  // Nearly exhausted: take the first unseen in order.
  for (uint64_t i = 0; i < size; ++i)
    if (Candidate c = space.at(i); !seen(c))
      return c;
  return std::nullopt;
}

namespace {

/// Every candidate in order.
struct Exhaustive : SearchStrategy {
  using SearchStrategy::SearchStrategy;
  uint64_t index = 0;
  std::optional<Candidate> next() override {
    while (index < space.size())
      if (Candidate c = space.at(index++); !seen(c))
        return c;
    return std::nullopt;
  }
};

/// Uniform sampling without replacement.
struct Random : SearchStrategy {
  using SearchStrategy::SearchStrategy;
  std::optional<Candidate> next() override { return randomUnseen(); }
};

/// Steady-state genetic search: a population of the best candidates so far
/// (elitism: the best always survive), tournament selection, uniform
/// crossover and per-knob mutation (resample or step to a neighbour).
struct Evolutionary : SearchStrategy {
  using SearchStrategy::SearchStrategy;
  static constexpr unsigned kPopulation = 12, kInitial = 12, kTournament = 3;

  std::optional<Candidate> next() override {
    std::vector<std::pair<Candidate, double>> pool;
    for (auto &entry : history)
      if (std::isfinite(entry.second))
        pool.push_back(entry);
    if (history.size() < kInitial || pool.size() < 2)
      return randomUnseen();
    std::sort(pool.begin(), pool.end(),
              [](auto &a, auto &b) { return a.second < b.second; });
    if (pool.size() > kPopulation)
      pool.resize(kPopulation);
    auto tournament = [&]() -> const Candidate & {
      size_t best = pool.size();
      for (unsigned i = 0; i < kTournament; ++i) {
        size_t pick =
            std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng);
        best = std::min(best, pick); // The pool is sorted: lower is fitter.
      }
      return pool[best].first;
    };
    size_t n = space.knobs().size();
    std::uniform_real_distribution<double> unit(0, 1);
    for (int attempt = 0; attempt < 200; ++attempt) {
      const Candidate &a = tournament(), &b = tournament();
      Candidate child(n);
      for (size_t i = 0; i < n; ++i)
        child[i] = unit(rng) < 0.5 ? a[i] : b[i];
      for (size_t i = 0; i < n; ++i) {
        if (unit(rng) >= 1.5 / n)
          continue;
        unsigned options = space.knobs()[i].options.size();
        if (unit(rng) < 0.5) { // Neighbour step: options are usually ordered.
          int step = unit(rng) < 0.5 ? -1 : 1;
          child[i] = std::clamp<int>(int(child[i]) + step, 0, options - 1);
        } else {
          child[i] =
              std::uniform_int_distribution<unsigned>(0, options - 1)(rng);
        }
      }
      if (!seen(child))
        return child;
    }
    return randomUnseen();
  }
};

/// Model-guided search: a ridge regression of log(time) on the knobs'
/// log-values and their pairwise products, refit on every observation,
/// ranks a sample of unseen candidates; the predicted best is measured next
/// (one proposal in four is random, to keep exploring). Failed candidates
/// are taught as twice the slowest success.
struct ModelGuided : SearchStrategy {
  using SearchStrategy::SearchStrategy;
  static constexpr unsigned kInitial = 10, kPoolSize = 4000;

  std::vector<double> features(const Candidate &c) const {
    std::vector<double> x = {1.0};
    std::vector<double> base;
    for (auto [i, knob] : llvm::enumerate(space.knobs())) {
      double v;
      if (llvm::StringRef(knob.options[c[i]]).getAsDouble(v) || v <= 0)
        v = c[i] + 1; // Non-numeric options: their position.
      base.push_back(std::log2(v));
    }
    for (size_t i = 0; i < base.size(); ++i) {
      x.push_back(base[i]);
      for (size_t j = i; j < base.size(); ++j)
        x.push_back(base[i] * base[j]);
    }
    return x;
  }

  /// Solves (X^T X + lambda I) w = X^T y by Gaussian elimination.
  std::vector<double> fit() const {
    double worst = 0;
    for (auto &[c, cost] : history)
      if (std::isfinite(cost))
        worst = std::max(worst, cost);
    size_t d = features(space.defaults()).size();
    std::vector<std::vector<double>> a(d, std::vector<double>(d + 1, 0.0));
    for (auto &[c, cost] : history) {
      double y =
          std::log(std::isfinite(cost) ? cost : 2 * std::max(worst, 1e-3));
      std::vector<double> x = features(c);
      for (size_t i = 0; i < d; ++i) {
        for (size_t j = 0; j < d; ++j)
          a[i][j] += x[i] * x[j];
        a[i][d] += x[i] * y;
      }
    }
    for (size_t i = 0; i < d; ++i)
      a[i][i] += 1e-2;
    for (size_t col = 0; col < d; ++col) {
      size_t pivot = col;
      for (size_t r = col + 1; r < d; ++r)
        if (std::fabs(a[r][col]) > std::fabs(a[pivot][col]))
          pivot = r;
      std::swap(a[col], a[pivot]);
      if (std::fabs(a[col][col]) < 1e-12)
        continue;
      for (size_t r = 0; r < d; ++r) {
        if (r == col)
          continue;
        double f = a[r][col] / a[col][col];
        for (size_t k = col; k <= d; ++k)
          a[r][k] -= f * a[col][k];
      }
    }
    std::vector<double> w(d, 0.0);
    for (size_t i = 0; i < d; ++i)
      if (std::fabs(a[i][i]) >= 1e-12)
        w[i] = a[i][d] / a[i][i];
    return w;
  }

  std::optional<Candidate> next() override {
    bool explore = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
    if (history.size() < kInitial || explore)
      return randomUnseen();
    std::vector<double> w = fit();
    std::vector<Candidate> pool;
    if (space.size() <= kPoolSize) {
      for (uint64_t i = 0; i < space.size(); ++i)
        if (Candidate c = space.at(i); !seen(c))
          pool.push_back(c);
    } else {
      for (unsigned i = 0; i < kPoolSize; ++i)
        if (std::optional<Candidate> c = randomUnseen())
          pool.push_back(*c);
    }
    if (pool.empty())
      return std::nullopt;
    auto predict = [&](const Candidate &c) {
      std::vector<double> x = features(c);
      double y = 0;
      for (size_t i = 0; i < x.size(); ++i)
        y += w[i] * x[i];
      return y;
    };
    return *std::min_element(pool.begin(), pool.end(),
                             [&](const Candidate &a, const Candidate &b) {
                               return predict(a) < predict(b);
                             });
  }
};

} // namespace

llvm::Expected<std::unique_ptr<SearchStrategy>>
tessel::createStrategy(llvm::StringRef name, const SearchSpace &space,
                       uint64_t seed) {
  if (name == "exhaustive")
    return std::make_unique<Exhaustive>(space, seed);
  if (name == "random")
    return std::make_unique<Random>(space, seed);
  if (name == "evolutionary")
    return std::make_unique<Evolutionary>(space, seed);
  if (name == "model")
    return std::make_unique<ModelGuided>(space, seed);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "unknown strategy '" + name +
          "' (expected exhaustive, random, evolutionary or model)");
}
