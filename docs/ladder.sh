#!/usr/bin/env bash
# The difficulty ladder of docs/ai.md (issue 23): `fray simulate` on every shipped level, sides
# swapped every game, for each rung of the ladder, and the stronger player's win rate over all
# the runs with its Wilson 95% interval against the rung's target. Not run by CI (200 games a
# rung, one seed: about 20 minutes on one core of a loaded 2-core machine). Usage:
#
#   docs/ladder.sh [GAMES_PER_SEED] [SEED...]       # default: 200 games on seed 1
#   PAIRS="hard:normal" docs/ladder.sh 60 1          # only some rungs (AI:VS, space-separated)
#   LEVELS="levels/segments_crypt.ron" docs/ladder.sh 60
#   JOBS=2 docs/ladder.sh                            # more games at once
#   OUT=dir REUSE=1 docs/ladder.sh 200 1 1001        # keep the runs already in dir
#   FRAY=path/to/fray docs/ladder.sh                 # another build (no cargo build)
#   TIME_LIMIT=2000 docs/ladder.sh                   # the clock's safety net in ms (default 200);
#                                                    # raise it on a loaded machine so no decision is cut
#
# Prints a Markdown table on standard output (a draw counts as not a win); each run's JSON is
# kept in $OUT (default a temp folder) so a cell can be checked.
set -euo pipefail
cd "$(dirname "$0")/.."

games="${1:-200}"
shift || true
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1)
# Each rung: the stronger player, the weaker one, the target share of games it wins.
# `easy` against greedy has no target: it shows how strong the first opponent is (a newcomer
# should be able to beat it; about greedy's strength is the aim).
pairs="${PAIRS:-easy:random normal:easy hard:normal normal:greedy easy:greedy}"
jobs="${JOBS:-1}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
levels=(${LEVELS:-levels/*.ron})

if [ -z "${FRAY:-}" ]; then
  cargo build --quiet --release --no-default-features --bin fray
  fray="${CARGO_TARGET_DIR:-target}/release/fray"
else
  fray="$FRAY"
fi

for level in "${levels[@]}"; do
  name="$(basename "$level" .ron)"
  for pair in $pairs; do
    ai="${pair%%:*}"
    vs="${pair##*:}"
    for seed in "${seeds[@]}"; do
      file="$out/$name.$ai-$vs.$seed.json"
      if [ -n "${REUSE:-}" ] && [ -s "$file" ]; then
        continue
      fi
      echo "$name $ai vs $vs seed $seed..." >&2
      "$fray" simulate "$level" --games "$games" --seed "$seed" --ai "$ai" --vs "$vs" \
        --jobs "$jobs" --time-limit "${TIME_LIMIT:-200}" --json > "$file"
    done
  done
done

python3 - "$out" "$games" "$pairs" "${seeds[@]}" <<'PY'
import glob, json, math, os, sys

out, games, pairs, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
target = {"easy:random": 90, "normal:easy": 65, "hard:normal": 65, "normal:greedy": 80}

def wilson(w, n, z=1.96):
    if n == 0:
        return 0.0, 1.0
    p = w / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)

levels = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(f"{out}/*.json")})
print(f"{games} side-swapped games per seed, seeds "
      + ", ".join(f"{s}–{int(s) + games - 1}" for s in seeds)
      + "; the first player's wins (95% CI), **bold** where it misses the target:\n")
heads = [f"`{p.split(':')[0]}` vs `{p.split(':')[1]}` "
         + (f"(≥ {target[p]}%)" if p in target else "(no target)") for p in pairs]
print("| Level | " + " | ".join(heads) + " |")
print("|---|" + "---|" * len(pairs))
worst = {}
for level in levels:
    cells = []
    for p in pairs:
        ai, vs = p.split(":")
        runs = []
        for s in seeds:
            f = f"{out}/{level}.{ai}-{vs}.{s}.json"
            if os.path.exists(f):
                runs.append(json.load(open(f)))
        if not runs:
            cells.append("–")
            continue
        n = sum(r["games"] for r in runs)
        w = sum(r["ai_wins"] for r in runs)
        cut = sum(r["ai_timing"]["cut"] + r["vs_timing"]["cut"] for r in runs)
        if cut:
            print(f"<!-- {level} {p}: {cut} decisions cut by the time limit -->", file=sys.stderr)
        lo, hi = wilson(w, n)
        rate = 100 * w / n
        cell = f"{rate:.1f}% ({100 * lo:.0f}–{100 * hi:.0f})"
        if p in target and rate < target[p]:
            cell = f"**{cell}**"
        cells.append(cell)
    print(f"| `{level}` | " + " | ".join(cells) + " |")
PY
