#!/usr/bin/env python3
"""Makes tests/data/v2-main.db: a database written by tara-bot at schema version 2.

It was run once with the binary of main at commit b75789d (the last schema-2 build), before the
store was split by domain, and its output is committed; tests/storage.rs opens a copy with the
current store and checks that everything survived the upgrade.

    git worktree add /tmp/tara-v2 b75789d && (cd /tmp/tara-v2 && cargo build --release)
    python3 tests/data/make-v2-main-db.py /tmp/tara-v2/target/release/tara-bot tests/data/v2-main.db

The console script it feeds to `tara-bot local` is written beside the database
(v2-main.commands). Random games are drawn with a fixed seed from the engine's legal moves
(`tara-bot engine`), so the same binary gives the same games; timestamps come from the wall clock
and differ from run to run.
"""

import json
import os
import random
import sqlite3
import subprocess
import sys

BIN = sys.argv[1]
OUT = sys.argv[2]


def engine(variant, scoring, first, moves):
    args = [BIN, "engine", "--variant", variant, "--moves", " ".join(moves)]
    if scoring:
        args += ["--scoring", scoring]
    if first:
        args += ["--first", first]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def playout(variant, scoring, first, seed, max_typed=None):
    """A random game as (side to move, move) pairs the players type, forced passes left out
    (the bot plays those). Stops after `max_typed` typed moves when given."""
    rng = random.Random(seed)
    moves, typed = [], []
    while True:
        pos = engine(variant, scoring, first, moves)
        if pos["status"] == "finished" or (max_typed is not None and len(typed) >= max_typed):
            return typed, pos
        legal = pos["legal"]
        if legal == ["pass"]:
            moves.append("pass")  # forced: the bot plays it
            continue
        m = rng.choice(legal)
        typed.append((pos["to_move"], m))
        moves.append(m)


lines = []


def say(*ls):
    lines.extend(ls)


def play(channel, players, variant, scoring, first, seed, max_typed=None):
    """Plays typed moves in a channel whose game is already running. Red and the attackers are
    players[0] (the challenger with first:me), Blue and the defenders players[1]."""
    typed, pos = playout(variant, scoring, first, seed, max_typed)
    say(f"/channel {channel}")
    for side, m in typed:
        who = players[0] if side in ("red", "attackers") else players[1]
        say(f"/as {who}", m)
    return typed, pos


def game(channel, a, b, variant, scoring, first_opt, seed, max_typed=None, extra=""):
    """A challenge from a to b in a channel, accepted, then played."""
    opts = f" scoring:{scoring}" if scoring else ""
    say(f"/channel {channel}", f"/as {a}",
        f"/challenge @{b} {variant}{opts} first:{first_opt}{extra}", f"/as {b}", "/accept")
    first = None
    if variant != "ard-ri":
        first = "red" if first_opt == "me" else "blue"
    return play(channel, [a, b], variant, scoring, first, seed, max_typed)


# Finished games of all five variants: played out, or resigned.
game("hkot1-done", "Alice", "Bob", "hkot-1", "knots", "opponent", 1)
game("hkot2-done", "Bob", "Carol", "hkot-2", None, "me", 2)
typed, pos = game("sh1-done", "Carol", "Alice", "sacred-hill-1", "kingdoms", "me", 3, max_typed=9)
resigner = "Carol" if pos["to_move"] == "red" else "Alice"
say(f"/as {resigner}", "/resign confirm")
game("sh2-done", "Dave", "Erin", "sacred-hill-2", None, "me", 4)
typed, pos = game("ardri-done", "Erin", "Dave", "ard-ri", None, "me", 5, max_typed=300)
if pos["status"] != "finished":
    say(f"/as {'Erin' if pos['to_move'] == 'attackers' else 'Dave'}", "/resign confirm")

# An aborted game.
say("/channel abort-me", "/as Bob", "/challenge @Dave hkot-1 first:me", "/as Dave", "/accept",
    "/as Bob", "/abort")

# A match of two games: the first played out, the second (Blue starts) under way.
typed, _ = game("match-ch", "Alice", "Erin", "hkot-2", None, "me", 6, extra=" match")
say("/as Alice", "/status")
play("match-ch", ["Alice", "Erin"], "hkot-2", None, "blue", 7, max_typed=3)

# Active games without a clock, one with a takeback request pending.
typed, pos = game("ardri-live", "Carol", "Dave", "ard-ri", None, "me", 8, max_typed=6)
last = "Carol" if typed[-1][0] == "attackers" else "Dave"
say(f"/as {last}", "/takeback")
game("sh2-live", "Dave", "Erin", "sacred-hill-2", None, "opponent", 9, max_typed=4)

# Clocked games: Dave wants reminders by DM; after two days the one-day game has timed out
# and the three-day game has sent its reminder.
say("/as Dave", "/settings reminders:dm")
game("clock-3d", "Bob", "Dave", "sacred-hill-1", None, "me", 10, max_typed=3, extra=" days:3")
game("clock-1d", "Carol", "Erin", "hkot-1", None, "me", 11, max_typed=2, extra=" days:1")
say("/time +2d", "/as Bob", "/games")

# Challenges: two pending (one a clocked match), one declined, one cancelled.
say("/channel lobby", "/as Alice", "/challenge @Carol ard-ri")
say("/channel lobby-2", "/as Carol", "/challenge @Bob hkot-2 match days:7 first:opponent")
say("/channel lobby-3", "/as Bob", "/challenge @Erin hkot-1 scoring:knots", "/as Erin",
    "/decline")
say("/channel lobby-4", "/as Dave", "/challenge @Alice sacred-hill-2 first:random", "/cancel")

# A vacation, and settings of a user and of the server.
say("/as Erin", "/vacation 3", "/as Alice", "/settings reminders:off")
say("/moderator on", "/settings default-days:5 reminder-hours:12", "/moderator off")
say("/quit")

base = os.path.splitext(OUT)[0]
with open(base + ".commands", "w") as f:
    f.write("\n".join(lines) + "\n")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(OUT + suffix):
        os.remove(OUT + suffix)
with open(base + ".commands") as script:
    subprocess.run([BIN, "local", "--db", OUT, "--no-images"], stdin=script, check=True,
                   stdout=open(base + ".log", "w"))
db = sqlite3.connect(OUT)
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
