#!/usr/bin/env bash
# The balance table of docs/ai.md: `fray balance` on every shipped level, one run per seed,
# and each side's win rate over all the runs with its Wilson 95% interval and the verdict.
# Not run by CI (it takes minutes). Usage:
#
#   docs/balance.sh [GAMES_PER_SEED] [SEED...]     # default: 200 games on seeds 1 and 1001
#   AI=greedy JOBS=2 docs/balance.sh 50 1           # another AI, more games at once
#   OUT=dir REUSE=1 docs/balance.sh 200 1 1001      # keep the runs already in dir (so two
#                                                    # seeds can run at once, then be joined)
#
# Prints a Markdown table on standard output; each run's JSON is kept in $OUT (default a temp
# folder) so a row can be checked.
set -euo pipefail
cd "$(dirname "$0")/.."

games="${1:-200}"
shift || true
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 1001)
ai="${AI:-normal}"
jobs="${JOBS:-1}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"

cargo build --quiet --release --no-default-features --bin fray
fray="${CARGO_TARGET_DIR:-target}/release/fray"

for level in levels/*.ron; do
  name="$(basename "$level" .ron)"
  for seed in "${seeds[@]}"; do
    if [ -n "${REUSE:-}" ] && [ -s "$out/$name.$seed.json" ]; then
      continue
    fi
    echo "$name seed $seed..." >&2
    "$fray" balance "$level" --games "$games" --seed "$seed" --ai "$ai" --jobs "$jobs" --json \
      > "$out/$name.$seed.json"
  done
done

python3 - "$out" "$games" "$ai" "${seeds[@]}" <<'PY'
import glob, json, math, os, sys

out, games, ai, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]

def wilson(w, n, z=1.96):
    if n == 0:
        return 0.0, 1.0
    p = w / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)

def pct(w, n):
    lo, hi = wilson(w, n)
    return f"{100 * w / n:.1f}% ({100 * lo:.0f}–{100 * hi:.0f})"

print(f"`{ai}` against itself, {games} games per seed, seeds "
      + ", ".join(f"{s}–{int(s) + games - 1}" for s in seeds) + ":\n")
head = " | ".join(f"seed {s}" for s in seeds)
print(f"| Level | Side | {head} | all {games * len(seeds)} (95% CI) | draws | mean rounds | verdict |")
print("|---|---|" + "---|" * len(seeds) + "---|---|---|---|")
levels = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(f"{out}/*.json")})
for level in levels:
    runs = [json.load(open(f"{out}/{level}.{s}.json")) for s in seeds]
    n = sum(r["games"] for r in runs)
    draws = sum(r["draws"] for r in runs)
    rounds = sum(r["mean_rounds"] * r["games"] for r in runs) / max(n, 1)
    cut = sum(r.get("cut", 0) for r in runs)
    if cut:
        print(f"<!-- {level}: {cut} decisions cut by the time limit -->", file=sys.stderr)
    sides = [x["side"] for x in runs[0]["sides"]]
    wins = [sum(r["sides"][i]["wins"] for r in runs) for i in range(len(sides))]
    fair = all(lo <= 0.6 and hi >= 0.4 for lo, hi in (wilson(w, n) for w in wins))
    top = max(wins)
    verdict = "fair" if fair else (
        f"favours {sides[wins.index(top)]}" if wins.count(top) == 1 else "not fair")
    for i, side in enumerate(sides):
        cells = " | ".join(pct(r["sides"][i]["wins"], r["games"]) for r in runs)
        first = i == 0
        print(f"| {'`' + level + '`' if first else ''} | {side} | {cells} | {pct(wins[i], n)} | "
              f"{draws if first else ''} | {f'{rounds:.1f}' if first else ''} | "
              f"{('**' + verdict + '**') if first else ''} |")
PY
