"""pydraughts' HubEngine drives `damx hub`, as a GUI or a bot would.

Checks, in order: the handshake (id, the parameters, set-param, init answered quickly, ping);
positions with captures (a forced multiple capture, and a capture in the middle of a game
given as `moves=`); each kind of limit (depth, nodes, move-time, sudden-death time, time with
an increment, moves and time); `stop` during `go analyze` under `level infinite`, with exactly
one `done`; and a whole game, damx (white) against seeded random moves from pydraughts' own
move list, every damx move checked against that list. Then `quit`, and the process must exit.

Run by `cargo xtask interop` with the path of the damx binary; a watchdog ends the script if
anything waits too long (pydraughts' reads have no time-out of their own).
"""

import argparse
import os
import random
import sys
import threading
import time

from draughts import Board
from draughts.engine import HubEngine, Limit

WATCHDOG_SECONDS = 240
MAX_PLIES = 300


def finish(code, message):
    print(f"interop hub: {message}", flush=True)
    sys.stderr.flush()
    os._exit(code)


def fail(message):
    finish(1, f"FAIL: {message}")


def check(condition, message):
    if not condition:
        fail(message)


def identity(move):
    """A move as the rules know it: from, to and the set of captured squares."""
    return (move.steps_move[0], move.steps_move[-1], tuple(sorted(move.captures)))


def legal(board, move):
    return identity(move) in {identity(m) for m in board.legal_moves()}


def read_until(engine, command):
    """The engine's lines up to and including the first with `command`."""
    lines = []
    while True:
        got = engine.recv_hub()
        lines.append(got)
        if got and got[0] == command:
            return lines


def handshake(engine):
    check(engine.id.get("name") == "damx", f"id name: {engine.id}")
    check("version" in engine.id, f"id version: {engine.id}")
    wanted = {"threads", "hash", "egdb", "weights", "skill"}
    check(wanted <= engine.options, f"parameters: {engine.options}")
    engine.configure({"threads": "1", "hash": "16", "skill": "20"})
    started = time.monotonic()
    engine.init()
    took = time.monotonic() - started
    check(took < 2.0, f"init took {took:.2f} s")
    engine.ping()
    print(f"interop hub: handshake ok ({engine.id}, init in {took * 1000:.0f} ms)", flush=True)


def captures(engine):
    board = Board(fen="W:W33:B28,17,8")
    result = engine.play(board, Limit(depth=4), ponder=False)
    check(result.move.hub_move == "33x11x17x28" or legal(board, result.move),
          f"forced capture: {result.move.hub_move}")
    check(legal(board, result.move), f"forced capture not legal: {result.move.hub_move}")

    # A capture in the game's history and one to make now.
    board = Board()
    for text in ["32-28", "19-23", "28x19"]:
        board.push(next(m for m in board.legal_moves() if m.hub_move.startswith(text)))
    result = engine.play(board, Limit(depth=6), ponder=False)
    check(legal(board, result.move), f"answer to 28x19: {result.move.hub_move}")
    check(len(result.move.captures) == 1, f"the capture back: {result.move.hub_move}")
    print(f"interop hub: captures ok ({result.move.hub_move})", flush=True)


def limits(engine):
    board = Board()
    cases = [
        ("depth", dict(depth=5), 30.0),
        ("nodes", dict(nodes=20000), 30.0),
        ("move-time", dict(movetime=0.3), 2.0),
        ("time", dict(time=6.0), 6.0),
        ("time+inc", dict(time=4.0, inc=1.0), 5.0),
    ]
    for name, limit, most in cases:
        started = time.monotonic()
        result = engine.play(board, Limit(**limit), ponder=False)
        took = time.monotonic() - started
        check(legal(board, result.move), f"{name}: {result.move.hub_move}")
        check(took < most, f"{name}: took {took:.2f} s")
        if name == "depth":
            check(engine.info.get("depth") == 5, f"depth: info {engine.info}")
        if name == "nodes":
            check(engine.info.get("nodes", 0) <= 40000, f"nodes: info {engine.info}")
        print(f"interop hub: {name} ok ({took:.2f} s, {engine.info.get('depth')} plies)", flush=True)
    # moves + time (x/y): pydraughts' go() passes moves_left.
    started = time.monotonic()
    best, _ = engine.go(board._game.initial_hub_fen, my_time=3.0, moves_left=10)
    took = time.monotonic() - started
    check(any(m.hub_move == best for m in board.legal_moves()), f"moves+time: {best}")
    check(took < 3.0, f"moves+time: took {took:.2f} s")
    print(f"interop hub: moves+time ok ({took:.2f} s)", flush=True)


def stop_infinite(engine):
    board = Board()
    engine.send(f"pos pos={board._game.initial_hub_fen}")
    engine.send("level infinite")
    engine.send("go analyze")
    time.sleep(0.5)
    engine.send("ping")
    before = read_until(engine, "pong")
    check(not any(line[0] == "done" for line in before), f"done before stop: {before}")
    engine.send("stop")
    lines = read_until(engine, "done")
    check(any(line[0] == "info" for line in before + lines), "no info line during the search")
    done = lines[-1][1]
    check(done.startswith("move="), f"done: {done}")
    best = done.split()[0].split("=")[1]
    check(any(m.hub_move == best for m in board.legal_moves()), f"stopped search: {best}")
    engine.send("ping")
    after = read_until(engine, "pong")
    check(not any(line[0] == "done" for line in after), f"a second done: {after}")
    print(f"interop hub: stop during go infinite ok ({best})", flush=True)


def whole_game(engine, seed):
    rng = random.Random(seed)
    board = Board()
    engine.send("new-game")
    plies = 0
    while not board.is_over() and plies < MAX_PLIES:
        moves = board.legal_moves()
        if plies % 2 == 0:
            result = engine.play(board, Limit(depth=3), ponder=False)
            check(legal(board, result.move),
                  f"ply {plies + 1}: damx played {result.move.hub_move}, "
                  f"legal are {[m.hub_move for m in moves]}")
            mine = next(m for m in moves if identity(m) == identity(result.move))
            board.push(mine)
        else:
            board.push(rng.choice(moves))
        plies += 1
    print(f"interop hub: whole game ok ({plies} plies, over: {board.is_over()}, "
          f"winner: {board.winner() if board.is_over() else None})", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--damx", required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    watchdog = threading.Timer(WATCHDOG_SECONDS, lambda: fail("watchdog: took too long"))
    watchdog.daemon = True
    watchdog.start()

    engine = HubEngine([args.damx, "hub"])
    handshake(engine)
    captures(engine)
    limits(engine)
    stop_infinite(engine)
    whole_game(engine, args.seed)
    engine.quit()
    for _ in range(100):
        if engine.p.poll() is not None:
            break
        time.sleep(0.05)
    else:
        fail("damx hub did not exit after quit")
    check(engine.p.returncode == 0, f"damx hub exit code {engine.p.returncode}")
    finish(0, "passed")


if __name__ == "__main__":
    main()
