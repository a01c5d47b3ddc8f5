"""pydraughts' DXP client against a damx Follower on 127.0.0.1.

Plays one complete game with damx (the Follower) as white, moving first, and pydraughts'
side choosing seeded random legal moves. Then reads the PDN record damx wrote with
pydraughts' PDNReader and checks it gives the moves that were played.

Run by `cargo xtask interop`, which starts the Follower, passes its port and record
directory, and puts a hard time limit around this script. Every wait in here is bounded too.

What pydraughts 0.6.7 does that shapes this driver (see team notes on its source):
- `DXPEngine.play()` busy-waits without a time-out, and after a GAMEEND it waits forever, so
  it is used only for the start (GAMEREQ, GAMEACC, damx's first move) on a thread we can
  abandon; afterwards the driver sends its moves with `Sender.send_move` and watches the
  receiver's state with a deadline.
- pydraughts ends a game by `Sender.gameend()` (`E01`), on its own turn here.
- Closing its socket sleeps 7 s and its receive thread spins after the peer closes, so the
  script ends with `os._exit` once the checks are done.
"""

import argparse
import glob
import os
import random
import sys
import threading
import time

MAX_PLIES = 300
ANSWER_TIMEOUT = 60.0


def finish(code, message):
    print(f"interop: {message}", flush=True)
    sys.stderr.flush()
    os._exit(code)


def fail(message):
    finish(1, f"FAIL: {message}")


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.002)
    fail(f"timed out after {timeout:.0f} s waiting for {what}")


def identity(move):
    """A move as the rules know it: from, to and the set of captured squares."""
    return (move.steps_move[0], move.steps_move[-1], tuple(sorted(move.captures)))


def squares_of(text):
    return [int(part) for part in text.replace("x", "-").split("-") if part]


def read_move(board, text):
    """The legal move of `board` that the PDN text `text` stands for."""
    legal = board.legal_moves()
    exact = [move for move in legal if move.pdn_move == text]
    if len(exact) == 1:
        return exact[0]
    squares = squares_of(text)
    fits = [
        move
        for move in legal
        if move.steps_move[0] == squares[0]
        and move.steps_move[-1] == squares[-1]
        and (len(squares) == 2 or list(move.steps_move) == squares)
    ]
    if len(fits) != 1:
        fail(f"PDN move {text!r} matches {len(fits)} legal moves")
    return fits[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pdn-dir", required=True)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from draughts import Board, WHITE, BLACK
    from draughts.PDN import PDNReader
    from draughts.engine import DXPEngine

    rng = random.Random(args.seed)
    board = Board()
    engine = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": args.port})
    sender, receiver = engine.sender, engine.receiver

    # The first play() connects, sends GAMEREQ (the Follower gets the side to move of this
    # board: white) and waits for GAMEACC and damx's first move.
    started = {}
    opening = threading.Thread(
        target=lambda: started.setdefault("result", engine.play(board)), daemon=True
    )
    opening.start()
    opening.join(ANSWER_TIMEOUT)
    first = started.get("result")
    if first is None or first.move is None:
        fail("no GAMEACC and first move from damx")
    print(f"interop: damx accepted as {sender.current.engineName!r} and opened {first.move.pdn_move}")
    board.push(first.move)

    ended_by = None
    while ended_by is None:
        if board.is_over() or len(board.move_stack) >= MAX_PLIES:
            # Our turn and the game is over (no legal move, or a draw by pydraughts' rules):
            # end it with GAMEEND instead of a move, as the spec says.
            sender.gameend()
            ended_by = "pydraughts"
            break
        move = rng.choice(board.legal_moves())
        board.push(move)
        sender.send_move(move)

        def answer():
            if receiver.last_move_changed:
                return "move"
            if not sender.current.started:
                return "gameend"
            return None

        what = wait_for(answer, ANSWER_TIMEOUT, f"damx's answer to {move.pdn_move}")
        if what == "gameend":
            ended_by = "damx"
        else:
            board.push(receiver.last_move)

    played = [move.pdn_move for move in board.move_stack]
    winner = board.winner()
    expected = {WHITE: "2-0", BLACK: "0-2", 0: "1-1", None: "*"}[winner]
    print(
        f"interop: game over after {len(played)} plies, ended by {ended_by}; "
        f"pydraughts' verdict {expected}"
    )
    print("interop: moves " + " ".join(played))

    # damx saves the record when the game ends; give it a moment to land.
    records = wait_for(
        lambda: sorted(glob.glob(os.path.join(args.pdn_dir, "*.pdn"))),
        10.0,
        "damx's PDN record",
    )
    if len(records) != 1:
        fail(f"expected one PDN record, found {records}")
    games = PDNReader(filename=records[0]).games
    if len(games) != 1:
        fail(f"PDNReader found {len(games)} games in {records[0]}")
    game = games[0]
    print(f"interop: PDNReader read {records[0]}: {len(game.moves)} moves, result {game.game_ending}")
    for name in ["White", "Black", "Result", "Termination"]:
        print(f"interop:   [{name} {game.tags.get(name)!r}]")

    if game.tags.get("White") != sender.current.engineName:
        fail(f"White is {game.tags.get('White')!r}, damx called itself {sender.current.engineName!r}")
    if game.tags.get("Black") != "DXP Client":
        fail(f"Black is {game.tags.get('Black')!r}, pydraughts calls itself 'DXP Client'")
    if len(game.moves) != len(board.move_stack):
        fail(f"the record has {len(game.moves)} moves, {len(board.move_stack)} were played")
    replay = Board()
    same_text = 0
    for index, (text, move) in enumerate(zip(game.moves, board.move_stack)):
        read = read_move(replay, text)
        if identity(read) != identity(move):
            fail(f"ply {index + 1}: the record says {text}, {move.pdn_move} was played")
        same_text += text == move.pdn_move
        replay.push(read)
    if winner in (WHITE, BLACK) and game.game_ending != expected:
        fail(f"the record's result is {game.game_ending}, the game ended {expected}")

    finish(
        0,
        f"OK: {len(game.moves)} moves read back identical "
        f"({same_text} written exactly as pydraughts writes them), result {game.game_ending}",
    )


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException as error:  # report, then leave without waiting for pydraughts' threads
        import traceback

        traceback.print_exc()
        fail(f"{type(error).__name__}: {error}")
