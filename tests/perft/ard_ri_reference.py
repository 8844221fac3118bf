#!/usr/bin/env python3
"""An independent Ard Ri reference, written from docs/rules.md §8 alone, to cross-check the
Ard Ri entries of the perft files in this folder.

    python3 tests/perft/ard_ri_reference.py [--max-depth N] tests/perft/*.perft

For every entry with `variant ard-ri` it reads `position` (the public notation) or starts from
the start position, plays `moves`, counts the legal move sequences of each `perft D N` line
(finished positions are not expanded) and reports any difference. Exit status 1 on a mismatch.
Plain dictionaries and loops: nothing is shared with the Rust engine.
"""
import sys

FILES = "abcdefg"
CORNERS = {(0, 0), (6, 0), (0, 6), (6, 6)}
THRONE = (3, 3)
DIRS = [(0, 1), (0, -1), (1, 0), (-1, 0)]
START = "2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0"


def on_board(c, r):
    return 0 <= c < 7 and 0 <= r < 7


class Pos:
    """board: {(col, row): 'a' | 'd' | 'k'}; side: 'a' | 'd'; quiet: plies since a capture;
    seen: {key: occurrences} of the positions of this game so far; over: result or None."""

    def __init__(self, board, side, quiet, seen, over):
        self.board, self.side, self.quiet, self.seen, self.over = board, side, quiet, seen, over

    def key(self):
        return (frozenset(self.board.items()), self.side)


def parse(text):
    board_text, side, quiet, ply = text.split()
    rows = board_text.split("/")
    assert len(rows) == 7
    board = {}
    for i, row in enumerate(rows):
        r = 6 - i
        c = 0
        for ch in row:
            if ch.isdigit():
                c += int(ch)
            else:
                board[(c, r)] = ch
                c += 1
        assert c == 7, row
    pos = Pos(board, side, int(quiet), {}, None)
    pos.seen = {pos.key(): 1}
    pos.over = initial_end(pos)
    return pos


def king_square(board):
    for sq, p in board.items():
        if p == "k":
            return sq
    raise ValueError("no king")


def king_surrounded(board):
    kc, kr = king_square(board)
    if kc in (0, 6) or kr in (0, 6):
        return False
    for dc, dr in DIRS:
        n = (kc + dc, kr + dr)
        if board.get(n) != "a" and not (n == THRONE and n not in board):
            return False
    return True


def initial_end(pos):
    if king_square(pos.board) in CORNERS:
        return "king-escaped"
    if king_surrounded(pos.board):
        return "king-captured"
    if pos.quiet >= 100:
        return "move-limit"
    if not legal(pos):
        return "no-moves"
    return None


def team(p):
    return "a" if p == "a" else "d"


def hostile_to(sq, victim, board):
    """Whether square sq (not holding a piece of the mover) is hostile to the piece `victim`."""
    if sq in CORNERS and sq not in board:
        return True
    if sq == THRONE:
        if sq not in board:
            return True
        return board[sq] == "k" and victim == "a"
    return False


def apply(pos, frm, to):
    """The board after moving frm -> to with captures, and the number of pieces captured."""
    board = dict(pos.board)
    piece = board.pop(frm)
    board[to] = piece
    mover = team(piece)
    captured = 0
    for dc, dr in DIRS:
        v = (to[0] + dc, to[1] + dr)
        b = (to[0] + 2 * dc, to[1] + 2 * dr)
        victim = board.get(v)
        if victim is None or victim == "k" or team(victim) == mover:
            continue
        if not on_board(*b):
            continue
        beyond = board.get(b)
        if (beyond is not None and team(beyond) == mover) or (
            beyond is None or beyond == "k"
        ) and hostile_to(b, victim, board):
            del board[v]
            captured += 1
    return board, captured


def pseudo_moves(pos):
    for (c, r), p in sorted(pos.board.items()):
        if team(p) != pos.side:
            continue
        for dc, dr in DIRS:
            t = (c + dc, r + dr)
            if not on_board(*t) or t in pos.board:
                continue
            if p != "k" and (t in CORNERS or t == THRONE):
                continue
            yield (c, r), t


def legal(pos):
    if pos.over:
        return []
    out = []
    for frm, to in pseudo_moves(pos):
        board, _ = apply(pos, frm, to)
        key = (frozenset(board.items()), "d" if pos.side == "a" else "a")
        if pos.seen.get(key, 0) >= 2:
            continue
        out.append((frm, to))
    return out


def play(pos, frm, to):
    board, captured = apply(pos, frm, to)
    side = "d" if pos.side == "a" else "a"
    quiet = 0 if captured else pos.quiet + 1
    seen = dict(pos.seen)
    nxt = Pos(board, side, quiet, seen, None)
    seen[nxt.key()] = seen.get(nxt.key(), 0) + 1
    if king_square(board) in CORNERS:
        nxt.over = "king-escaped"
    elif pos.side == "a" and king_surrounded(board) and adjacent(to, king_square(board)):
        nxt.over = "king-captured"
    elif quiet >= 100:
        nxt.over = "move-limit"
    elif not legal(nxt):
        nxt.over = "no-moves"
    return nxt


def adjacent(a, b):
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def perft(pos, depth):
    if depth == 0:
        return 1
    if pos.over:
        return 0
    moves = legal(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(play(pos, f, t), depth - 1) for f, t in moves)


def square(name):
    return (FILES.index(name[0].lower()), int(name[1]) - 1)


def entries(path):
    entry = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("#"):
            continue
        if not line:
            if entry:
                yield entry
            entry = {}
            continue
        word, _, rest = line.partition(" ")
        if word == "perft":
            d, n = rest.split()
            entry.setdefault("perft", []).append((int(d), int(n)))
        else:
            entry[word] = rest.strip()
    if entry:
        yield entry


def main(args):
    max_depth = 99
    if args[:1] == ["--max-depth"]:
        max_depth = int(args[1])
        args = args[2:]
    bad = checked = 0
    for path in args:
        for e in entries(path):
            if e.get("variant") != "ard-ri":
                continue
            pos = parse(e.get("position", START))
            for mv in e.get("moves", "").split():
                a, b = mv.split("-")
                frm, to = square(a), square(b)
                assert (frm, to) in legal(pos), (e["id"], mv)
                pos = play(pos, frm, to)
            for d, n in e.get("perft", []):
                if d > max_depth:
                    continue
                got = perft(pos, d)
                checked += 1
                status = "ok" if got == n else "MISMATCH"
                if got != n:
                    bad += 1
                print(f"{path} {e['id']} perft {d}: file {n}, reference {got} {status}", flush=True)
    print(f"{checked} counts checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
