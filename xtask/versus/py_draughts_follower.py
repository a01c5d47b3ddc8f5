"""A DXP Follower that plays with py-draughts' TurboEngine.

py-draughts (PyPI `py-draughts`, GPL) has a strong international-draughts engine but no DXP.
This thin adapter gives it one, so that `damx match` can referee it like any DXP program:

    python py_draughts_follower.py --listen 27531 [--time S] [--depth N]
    python py_draughts_follower.py --connect 127.0.0.1:27531

It serves one connection as Follower (docs/spec/dxp.md): it accepts every GAMEREQ with a
normal (`A`) or set-up (`B`) start, answers BACKREQ with `K1` (not supported), ignores CHAT,
and acknowledges a GAMEEND with stop code 1 if either side asked for it (dxp.md §3), closing
the connection after a stop code 1. It thinks `--time S` seconds a move if given; otherwise
it divides its own remaining clock (the GAMEREQ's minutes, minus the time it measured itself)
by the moves left to the move limit, or by 30 without one; without a clock, 1 s a move.

Received moves are matched against py-draughts' legal moves by (from, to, set of captured
squares); sent moves always carry the full captured list. Every frame in and out, and each
search's depth and score, is logged to standard error.
"""

import argparse
import select
import signal
import socket
import sys
import time

from draughts import Board
from draughts.engines.turbo import TurboEngine
from draughts.models import Color

NAME = "py-draughts TurboEngine".ljust(32)
MOVES_TO_GO = 30  # moves a clock is shared over when the game has no move limit
UNCLOCKED_TIME = 1.0  # seconds a move when neither --time nor the GAMEREQ gives a clock
MIN_TIME = 0.05  # never think less than this
PACE = 0.1  # pause between a GAMEACC and the first MOVE right after it (dxp.md §6)

started = time.monotonic()


def log(text):
    print(f"[{time.monotonic() - started:9.3f}] {text}", file=sys.stderr, flush=True)


class Connection:
    """A DXP byte stream: frames are 1..127 ASCII bytes, each ended by one NUL (dxp.md §1)."""

    def __init__(self, sock, idle_timeout):
        self.sock = sock
        self.idle_timeout = idle_timeout
        self.buffer = b""

    def send(self, text):
        log(f"send {text}")
        self.sock.sendall(text.encode("ascii") + b"\0")

    def receive(self, timeout):
        """The next frame; None when none arrives within `timeout` s. EOFError when closed."""
        deadline = time.monotonic() + timeout
        while True:
            frame, nul, rest = self.buffer.partition(b"\0")
            if nul:
                self.buffer = rest
                if 1 <= len(frame) <= 127 and all(1 <= byte <= 127 for byte in frame):
                    text = frame.decode("ascii")
                    log(f"recv {text}")
                    return text
                log(f"recv unreadable frame {frame[:200]!r} (skipped)")
                continue
            if len(self.buffer) > 127:  # no NUL where one must be: drop the junk
                log(f"recv {len(self.buffer)} bytes without NUL (skipped)")
                self.buffer = b""
            left = max(0.0, deadline - time.monotonic())
            if not select.select([self.sock], [], [], left)[0]:
                return None
            data = self.sock.recv(4096)
            if not data:
                raise EOFError
            self.buffer += data

    def wait(self):
        """The next frame, waiting at most the idle time-out. EOFError when closed or silent."""
        frame = self.receive(self.idle_timeout)
        if frame is None:
            log(f"nothing received for {self.idle_timeout} s: closing")
            raise EOFError
        return frame


class Game:
    """One game: the board, our colour, our clock and our engine (its table lasts the game)."""

    def __init__(self, board, colour, minutes, move_limit, depth):
        self.board = board
        self.colour = colour
        self.clock = minutes * 60.0 if minutes else None
        self.used = 0.0
        self.move_limit = move_limit
        self.our_moves = 0
        self.engine = TurboEngine(depth_limit=depth)
        self.turn_started = time.monotonic()

    def our_turn(self):
        return self.board.turn == self.colour


def read_request(frame):
    """A GAMEREQ's (acceptance code, Game arguments or None), per dxp.md §2."""
    if frame[1:3] != "01":
        return "1", None
    if len(frame) not in (43, 94) or frame[35] not in "WZ" or not frame[36:42].isdigit():
        return "2", None
    colour = Color.WHITE if frame[35] == "W" else Color.BLACK
    if frame[42] == "A" and len(frame) == 43:
        board = Board()
    elif frame[42] == "B" and len(frame) == 94 and frame[43] in "WZ":
        squares = frame[44:94]
        if any(piece not in "ewzWZ" for piece in squares):
            return "2", None
        white = [("K" if p == "W" else "") + str(i + 1) for i, p in enumerate(squares) if p in "wW"]
        black = [("K" if p == "Z" else "") + str(i + 1) for i, p in enumerate(squares) if p in "zZ"]
        fen = f"{'W' if frame[43] == 'W' else 'B'}:W{','.join(white)}:B{','.join(black)}"
        try:
            board = Board.from_fen(fen)
        except ValueError as error:
            log(f"position refused: {error}")
            return "2", None
    else:
        return "2", None
    if not board.legal_moves:
        return "2", None
    return "0", (board, colour, int(frame[36:39]), int(frame[39:42]))


def move_key(move):
    """A legal move as DXP identifies it: from, to and the set of captured squares (1..50)."""
    return (
        move.square_list[0] + 1,
        move.square_list[-1] + 1,
        frozenset(square + 1 for square in move.captured_list),
    )


def read_move(frame, board):
    """The legal move of `board` that a MOVE frame names, or None."""
    body = frame[5:]
    if not body.isdigit() or len(body) < 6 or len(body) != 6 + 2 * int(body[4:6]):
        return None
    squares = [int(body[i : i + 2]) for i in range(0, len(body), 2)]
    key = (squares[0], squares[1], frozenset(squares[3:]))
    return next((move for move in board.legal_moves if move_key(move) == key), None)


def move_frame(move, seconds):
    start, end, captured = move_key(move)
    listed = "".join(f"{square:02d}" for square in sorted(captured))
    return f"M{min(9999, round(seconds)):04d}{start:02d}{end:02d}{len(captured):02d}{listed}"


class Follower:
    def __init__(self, connection, args):
        self.connection = connection
        self.args = args
        self.game = None
        self.awaiting_ack = False  # we sent the first GAMEEND of a handshake
        self.done = False  # a stop code 1 was exchanged

    def serve(self):
        try:
            while not self.done:
                self.handle(self.connection.wait())
        except EOFError:
            log("connection closed")

    def handle(self, frame):
        kind = frame[0]
        if kind == "R":
            self.on_request(frame)
        elif kind == "M":
            self.on_move(frame)
        elif kind == "E" and len(frame) == 3:
            self.on_end(frame[2] == "1")
        elif kind == "B":
            self.connection.send("K1")
        elif kind != "C":
            log(f"ignored {frame!r}")

    def on_request(self, frame):
        if self.game is not None or self.awaiting_ack:
            self.connection.send(f"A{NAME}2")  # one game at a time, as Moby Dam answers
            return
        code, game = read_request(frame)
        self.connection.send(f"A{NAME}{code}")
        if game is not None:
            self.game = Game(*game, depth=self.args.depth)
            if self.game.our_turn():
                time.sleep(PACE)
                self.play()

    def on_move(self, frame):
        game = self.game
        if game is None or game.our_turn():
            log("MOVE out of turn ignored")
            return
        move = read_move(frame, game.board)
        if move is None:
            self.connection.send(f"Cillegal or unreadable move {frame}: game ended")
            self.end()
            return
        game.board.push(move)
        game.turn_started = time.monotonic()
        self.play()

    def on_end(self, stop):
        if self.awaiting_ack:  # the acknowledgement of ours
            self.awaiting_ack = False
        elif self.game is not None:  # the peer's first GAMEEND: answer it (dxp.md §3)
            self.connection.send(f"E0{1 if stop else 0}")
            self.game = None
        else:
            log("stray GAMEEND between games ignored")
            return
        if stop:
            self.done = True

    def end(self):
        """Ends the game on our turn; the acknowledgement comes as a GAMEEND."""
        self.connection.send("E00")
        self.game = None
        self.awaiting_ack = True

    def think_time(self, game):
        if self.args.time:
            return self.args.time
        if game.clock is None:
            return UNCLOCKED_TIME
        left = game.clock - game.used
        to_go = game.move_limit - game.our_moves if game.move_limit > game.our_moves else 0
        return max(MIN_TIME, left / (to_go or MOVES_TO_GO))

    def play(self):
        game = self.game
        legal = game.board.legal_moves
        if not legal:  # lost: no move to make, so end the game on our turn (dxp.md §3)
            self.end()
            return
        if len(legal) == 1:
            move = legal[0]
        else:
            engine = game.engine
            engine.time_limit = self.think_time(game)
            move, score = engine.get_best_move(game.board, with_evaluation=True)
            log(
                f"search {engine.time_limit:.2f} s: {move} depth {engine.completed_depth} "
                f"nodes {engine.nodes} score {score:+.2f}"
            )
        # What arrived while we thought (a GAMEEND, a BACKREQ, a CHAT) comes first.
        while (frame := self.connection.receive(0)) is not None:
            self.handle(frame)
        if self.game is not game:
            return
        spent = time.monotonic() - game.turn_started
        game.used += spent
        game.our_moves += 1
        game.board.push(move)
        self.connection.send(move_frame(move, spent))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen", metavar="[HOST:]PORT", help="accept one connection here")
    where.add_argument("--connect", metavar="HOST:PORT", help="connect to an Initiator")
    parser.add_argument("--time", type=float, help="seconds a move (default: by the clock)")
    parser.add_argument("--depth", type=int, help="TurboEngine's depth limit (default: none)")
    parser.add_argument("--idle-timeout", type=float, default=600, metavar="S")
    args = parser.parse_args()
    # Whoever started us stops us through DXP (GAMEEND stop 1, then close), as a referee does
    # on a first Ctrl-C; a Ctrl-C of the terminal's process group must not kill a game.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if args.time is not None and args.time <= 0:
        parser.error("--time must be positive")

    host, _, port = (args.connect or args.listen).rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if args.connect:
        sock = socket.create_connection((host, int(port)), timeout=30)
    else:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.create_server((host, int(port)), family=family)
        log(f"listening on {listener.getsockname()}")
        listener.settimeout(args.idle_timeout)
        try:
            sock, peer = listener.accept()
        except TimeoutError:
            sys.exit(f"no connection within {args.idle_timeout} s")
        finally:
            listener.close()
        log(f"connected to {peer}")
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        Follower(Connection(sock, args.idle_timeout), args).serve()
    finally:
        sock.close()


if __name__ == "__main__":
    main()
