#!/usr/bin/env python3
"""A deliberately broken DXP Follower, for the referee's tests.

    broken_follower.py MODE (--connect PORT | --listen PORT)

--connect: it connects to the referee on 127.0.0.1:PORT; --listen: it listens there and the
referee connects. It accepts every GAMEREQ, acknowledges every GAMEEND (and exits after a stop
code 1 or when the connection ends), and on its turn:

    illegal  sends a move that is never legal (from 1 to 2)
    silent   sends nothing, ever
    crash    plays one legal move from the normal start (32-28 as white, 19-23 as black),
             then exits with status 3 on its next turn, in the middle of the game
    refuse   (no turn: refuses every game with A...2)

It knows no rules beyond that, so the crash mode needs games from the normal start.
"""

import socket
import sys

MODE, HOW, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
NAME = ("Broken " + MODE)[:32].ljust(32)


def connect():
    if HOW == "--listen":
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", PORT))
        server.listen(1)
        conn, _ = server.accept()
        server.close()
        return conn
    return socket.create_connection(("127.0.0.1", PORT))


def frames(conn):
    buf = b""
    while True:
        while b"\0" in buf:
            frame, buf = buf.split(b"\0", 1)
            yield frame.decode("ascii", "replace")
        data = conn.recv(4096)
        if not data:
            return
        buf += data


def main():
    conn = connect()

    def send(text):
        conn.sendall(text.encode("ascii") + b"\0")

    color = None
    moves_made = 0

    def turn():
        nonlocal moves_made
        if MODE == "illegal":
            send("M0000010200")
        elif MODE == "crash":
            if moves_made > 0:
                sys.exit(3)
            send("M0000322800" if color == "W" else "M0000192300")
            moves_made += 1
        # silent: nothing

    for frame in frames(conn):
        kind = frame[:1]
        if kind == "R":
            if MODE == "refuse":
                send("A" + NAME + "2")
                continue
            color = frame[35]
            to_move = frame[43] if frame[42] == "B" else "W"
            moves_made = 0
            send("A" + NAME + "0")
            if color == to_move:
                turn()
        elif kind == "M":
            turn()
        elif kind == "E":
            send("E0" + frame[2])
            if frame[2] == "1":
                break
    conn.close()


if __name__ == "__main__":
    main()
