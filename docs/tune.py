#!/usr/bin/env python3
"""Tunes the AI's position-score weights by self-play with SPSA (docs/ai.md, "Tuned weights").

Each iteration perturbs every weight at once, by a factor exp(+c) or exp(-c) chosen at random
per weight, and plays GAMES side-swapped games of `normal`'s search with the "+" weights
against `normal`'s search with the "-" weights on one level of the training mix (the levels in
turn), with `fray simulate --ai-weights/--vs-weights` (hidden options, tuning runs only). The
"+" player's share of the points (a draw is half) estimates the slope of the win rate along the
perturbation, and every weight takes a step along it (in log space, so a weight keeps its sign;
each stays within a factor 0.2-5 of its default). `--search hard` has both players use `hard`'s search (more nodes, cells and depth) rather than
`normal`'s, so the run tunes the weights in the search that will use them. Training games use
seeds from SEED upwards
(game g of iteration k: SEED + k*GAMES + g): keep the measuring seeds out of that range.

Usage: docs/tune.py [--iterations K] [--games N] [--seed S] [--out DIR] [--resume]
                    [--levels a,b,...] [--start FILE.ron] [--a A] [--big-a A] [--c C]
                    [--search hard]
  FRAY (env): the fray binary (default: target/release/fray; build it with
  `cargo build --release --no-default-features`). Runs `nice -n 10`, one game at a time.
Writes DIR/log.tsv (one line per iteration), DIR/theta.json (the state, for --resume) and
DIR/tuned.ron: the mean of the weights over the second half of the run (SPSA's iterates are
noisy; their average is the estimate), in the RON form `--ai-weights` reads.
Python 3 standard library only.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys

# Today's weights (src/ai/eval.rs, Weights::DEFAULT): the point the search starts from.
DEFAULT = {
    "foe_lost": 10.0,
    "foe_lost_sq": 8.0,
    "foe_down": 25.0,
    "own_lost": 11.0,
    "own_down": 16.0,
    "broken": 0.8,
    "spell_kept": 0.7,
    "spare_ap": 0.1,
    "spare_reaction": 0.3,
    "certain_down": 0.5,
    "certain_weight": 4.0,
    "half_cover": 0.4,
    "full_cover": 0.8,
    "shooter_in_range": 1.5,
    "shooter_closing": 0.08,
    "shooter_in_melee": 1.0,
    "closing": 0.2,
    "exposure": 0.05,
    "exposure_fragile": 0.4,
    "exposure_per_hp": 3.0,
    "objective": 0.25,
    "odds": 0.5,
    "door_way": 0.5,
}
NAMES = sorted(DEFAULT)
LEVELS = [
    "action_points_ruins",
    "alternating_bridge",
    "phases_flat_canyon",
    "phases_hex_skirmish",
    "segments_crypt",
    "sides_keep_arrow_slits",
    "sides_village_brawl",
]
BOUND = math.log(5.0)


def weights(theta):
    return {n: DEFAULT[n] * math.exp(theta[n]) for n in NAMES}


def ron(w):
    return "(\n" + "".join(f"    {n}: {w[n]:.6f},\n" for n in NAMES) + ")\n"


def play(fray, level, plus, minus, games, seed, search="normal"):
    """The points of the --ai-weights player ("+"), a draw counting half, and the games."""
    out = subprocess.run(
        ["nice", "-n", "10", fray, "simulate", f"levels/{level}.ron", "--games", str(games),
         "--seed", str(seed), "--ai", search, "--vs", search, "--ai-weights", plus,
         "--vs-weights", minus, "--jobs", "1", "--time-limit", "2000", "--json"],
        check=True, capture_output=True, text=True).stdout
    s = json.loads(out)
    return s["ai_wins"] + 0.5 * s["draws"], s["games"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=400)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=500000)
    ap.add_argument("--out", default="/tmp/fray-tune")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--a", type=float, default=2.5, help="step size numerator")
    ap.add_argument("--c", type=float, default=0.3, help="perturbation, in log space")
    ap.add_argument("--big-a", type=int, help="the step's offset A (default: iterations/10)")
    ap.add_argument("--levels", default=",".join(LEVELS), help="the training mix, in turn")
    ap.add_argument("--start", help="start from these weights (RON, as tuned.ron writes)")
    ap.add_argument("--search", default="normal", choices=("normal", "hard"),
                    help="whose search both players use (its node budget, cells and depth)")
    o = ap.parse_args()
    fray = os.environ.get("FRAY", "target/release/fray")
    os.makedirs(o.out, exist_ok=True)
    state_path = os.path.join(o.out, "theta.json")
    if o.resume and os.path.exists(state_path):
        with open(state_path) as f:
            state = json.load(f)
    else:
        theta = {n: 0.0 for n in NAMES}
        if o.start:
            with open(o.start) as f:
                for line in f:
                    name, _, value = line.strip().rstrip(",").partition(":")
                    if name in DEFAULT:
                        theta[name] = math.log(float(value) / DEFAULT[name])
        state = {"k": 0, "theta": theta, "sum": {n: 0.0 for n in NAMES}, "summed": 0}
        with open(os.path.join(o.out, "log.tsv"), "w") as f:
            f.write("k\tlevel\tseed\tplus_points\tgames\t" + "\t".join(NAMES) + "\n")
    big_a = o.big_a if o.big_a is not None else max(1, o.iterations // 10)
    plus_path, minus_path = os.path.join(o.out, "plus.ron"), os.path.join(o.out, "minus.ron")
    while state["k"] < o.iterations:
        k = state["k"]
        theta = state["theta"]
        a_k = o.a / (k + 1 + big_a) ** 0.602
        c_k = o.c / (k + 1) ** 0.101
        # The perturbation of iteration k is drawn from its own seed, so a resumed run draws
        # what an unbroken one would.
        rng = random.Random(o.seed * 1_000_003 + k)
        delta = {n: rng.choice((-1.0, 1.0)) for n in NAMES}
        with open(plus_path, "w") as f:
            f.write(ron(weights({n: theta[n] + c_k * delta[n] for n in NAMES})))
        with open(minus_path, "w") as f:
            f.write(ron(weights({n: theta[n] - c_k * delta[n] for n in NAMES})))
        levels = o.levels.split(",")
        level = levels[k % len(levels)]
        seed = o.seed + k * o.games
        points, games = play(fray, level, plus_path, minus_path, o.games, seed, o.search)
        # y+ - y-: the "+" player's share above the "-" player's, in [-1, 1].
        diff = (2.0 * points - games) / max(games, 1)
        for n in NAMES:
            g = diff / (2.0 * c_k * delta[n])
            theta[n] = max(-BOUND, min(BOUND, theta[n] + a_k * g))
        state["k"] = k + 1
        if state["k"] > o.iterations // 2:
            for n in NAMES:
                state["sum"][n] += theta[n]
            state["summed"] += 1
        with open(os.path.join(o.out, "log.tsv"), "a") as f:
            f.write(f"{k}\t{level}\t{seed}\t{points}\t{games}\t"
                    + "\t".join(f"{theta[n]:.4f}" for n in NAMES) + "\n")
        with open(state_path, "w") as f:
            json.dump(state, f)
        print(f"{k} {level} {points}/{games} "
              + " ".join(f"{n}={math.exp(theta[n]):.2f}" for n in NAMES if abs(theta[n]) > 0.2),
              flush=True)
    mean = (state["theta"] if state["summed"] == 0
            else {n: state["sum"][n] / state["summed"] for n in NAMES})
    with open(os.path.join(o.out, "tuned.ron"), "w") as f:
        f.write(ron(weights(mean)))
    with open(os.path.join(o.out, "last.ron"), "w") as f:
        f.write(ron(weights(state["theta"])))
    print("wrote", os.path.join(o.out, "tuned.ron"), file=sys.stderr)


if __name__ == "__main__":
    main()
