//! Runs the real `damx` binary and checks its output and exit codes, command by command,
//! valid and invalid input alike: most cases are one [`run`] each, with the exit code and
//! what standard output and standard error must hold.

use std::io::Write;

mod common;
use common::Expect::{Has, Is, Ours};
use common::{TempDir, code, damx_with_input, json_lines, run, run_with, stderr, stdout};

/// Every kind of message as bytes and as JSON (damx-wire's serde shape), dxp.md §5's vectors
/// among them: damx-wire's table.
#[path = "../../damx-wire/tests/examples/mod.rs"]
mod examples;
use examples::EXAMPLES;

/// The wire texts (`0`) or the JSON (`1`) of the vectors, one a line.
fn vector_lines(json: bool) -> String {
    let line = |vector: &(&str, &str)| format!("{}\n", if json { vector.1 } else { vector.0 });
    EXAMPLES.iter().map(line).collect()
}

/// The version, the overview (the commands and the exit codes), an example of each command
/// in its help, usage errors (exit code 2, nothing on standard output), `-q` and `-v`.
#[test]
fn the_skeleton() {
    let version = format!("damx {}\n", env!("CARGO_PKG_VERSION"));
    run("--version", 0, Is(&version), Is(""));
    let commands = ["decode", "encode", "analyse", "perft", "bench"];
    let overview = [&commands[..], &["Exit codes:"]].concat();
    run("--help", 0, Has(&overview), Is(""));
    for command in commands {
        let example = format!("  damx {command} ");
        let help = format!("{command} --help");
        run(&help, 0, Has(&["Examples:", &example]), Is(""));
    }
    for line in [
        "",
        "frobnicate",
        "perft startpos",
        "perft startpos many",
        "decode --frames E00",
        "decode -v -q E00",
    ] {
        run(line, 2, Is(""), Has(&[]));
    }
    run("-q decode E00", 0, Has(&["gameend"]), Is(""));
    let verbose = Is("damx: 1 of 1 messages decoded\n");
    run("decode E00 -v", 0, Has(&["gameend"]), verbose);
    // Problems with the input show even when quiet.
    run("-q decode X", 1, Is(""), Ours(&["X"]));
}

/// A reader that stops reading (`damx decode | head -1`) ends the command quietly.
#[test]
fn a_closed_standard_output_is_not_an_error() {
    let mut child = common::spawn(&["decode"]);
    drop(child.stdout.take());
    let mut input = child.stdin.take().expect("stdin is piped");
    let writer = std::thread::spawn(move || {
        for _ in 0..20_000 {
            if input.write_all(b"M0012061100\n").is_err() {
                break;
            }
        }
    });
    let output = child.wait_with_output().expect("damx runs to the end");
    writer.join().expect("the input is written");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

/// `decode`: every spec vector to its JSON, from arguments, standard input and a file; each
/// invalid line, argument or frame (a raw NUL-framed stream with frames merged as in one TCP
/// read, an empty frame, a non-ASCII frame, a cut-off end) named with where it came from,
/// its text, the message kind, the byte and the problem (exit code 1) while the valid ones
/// around it are converted; a missing file is an I/O error (3).
#[test]
fn decode() {
    let (wire, json) = (vector_lines(false), vector_lines(true));
    let mut args = vec!["decode"];
    args.extend(EXAMPLES.iter().map(|vector| vector.0));
    run_with(&args, b"", 0, Is(&json), Is(""));
    run_with(&["decode"], wire.as_bytes(), 0, Is(&json), Is(""));
    let dir = TempDir::new("decode");
    let file = dir.file("messages.txt", &wire);
    run_with(&["decode", "--file", &file], b"", 0, Is(&json), Is(""));
    let missing = dir.path("missing.txt");
    let error = format!("damx: cannot open {missing}: no such file or directory\n");
    run_with(&["decode", "-f", &missing], b"", 3, Is(""), Is(&error));

    let gameend = "{\"type\":\"gameend\",\"reason\":\"no_reason\",\"stop\":\"continue\"}\n";
    let backacc = "{\"type\":\"backacc\",\"code\":\"not_supported\"}\n";
    let input = b"E00\nM0012x61100\r\n\nK1\nX12\nM00120611\nK1 \n";
    let errors = "damx: line 2: \"M0012x61100\": MOVE: byte 5: expected a digit, found 'x'\n\
         damx: line 5: \"X12\": byte 0: unknown message kind 'X'\n\
         damx: line 6: \"M00120611\": MOVE: byte 9: expected at least 11 bytes, found 9\n\
         damx: line 7: \"K1 \": BACKACC: byte 2: expected 2 bytes, found 3\n\
         damx: 4 of 6 messages could not be decoded\n";
    run_with(
        &["decode"],
        input,
        1,
        Is(&(gameend.to_owned() + backacc)),
        Is(errors),
    );
    let argument = ["damx: argument 2: \"E09\": GAMEEND: byte 2:"];
    run("decode E00 E09", 1, Is(gameend), Ours(&argument));

    let stream = b"E00\0K1\0\0M0012061100\0\xffab\0CHello";
    let errors = "damx: frame 3 (byte 7): \"\": empty frame: a NUL with no message before it\n\
         damx: frame 5 (byte 20): \"\\xffab\": frame byte 0: 0xff is not 7-bit ASCII\n\
         damx: frame 6 (byte 24): \"CHello\": stream ended inside a frame (6 bytes without a NUL)\n\
         damx: 3 of 6 messages could not be decoded\n";
    let output = run_with(&["decode", "--frames"], stream, 1, Has(&[]), Is(errors));
    let lines: Vec<String> = stdout(&output).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[2].contains(r#""from":6"#), "{lines:?}");
}

/// `encode`: the JSON of every spec vector to exactly its wire text, so that decode and
/// encode give back the bytes; `--frames` writes each message with its NUL; invalid JSON
/// objects and values the wire cannot carry are named while the rest are encoded (1).
#[test]
fn encode() {
    let (wire, json) = (vector_lines(false), vector_lines(true));
    run_with(&["encode"], json.as_bytes(), 0, Is(&wire), Is(""));
    let decoded = damx_with_input(&["decode"], wire.as_bytes());
    run_with(&["encode"], &decoded.stdout, 0, Is(&wire), Is(""));
    let frames = [
        "encode",
        "--frames",
        r#"{"type":"gameend","reason":"give_up","stop":"stop"}"#,
        r#"{"type":"backacc","code":"accepted"}"#,
    ];
    run_with(&frames, b"", 0, Is("E11\0K0\0"), Is(""));

    let input = concat!(
        r#"{"type":"gameend","reason":"draw","stop":"continue"}"#,
        "\n",
        r#"{"type":"move","seconds":12,"from":51,"to":11,"captured":[]}"#,
        "\n",
        "not json\n",
        r#"{"type":"chat","text":"two\nlines"}"#,
        "\n",
        r#"{"type":"backacc","code":"declined"}"#,
        "\n",
    );
    let output = run_with(&["encode"], input.as_bytes(), 1, Is("E20\nK2\n"), Ours(&[]));
    let errors = stderr(&output);
    let lines: Vec<&str> = errors.lines().collect();
    assert_eq!(lines.len(), 4, "{errors}");
    assert!(lines[0].starts_with("damx: line 2: ") && lines[0].contains("51"));
    assert!(
        lines[1].starts_with("damx: line 3: \"not json\": "),
        "{errors}"
    );
    assert!(lines[2].starts_with("damx: line 4: ") && lines[2].contains("--frames"));
    assert_eq!(lines[3], "damx: 3 of 5 messages could not be encoded");
}

/// `perft`: the published count (rules.md) with the threads, the time and the speed, and no
/// progress display when standard error is not a terminal; `--json --divide` one object
/// (its shape: damx-engine's tests), depth 0 the root itself; a FEN that does not parse is a
/// usage error that says what is wrong with it.
#[test]
fn perft() {
    let report = [
        "depth    5\nthreads  1\nnodes    27117\ntime     ",
        " s\nspeed    ",
    ];
    run("perft startpos 5", 0, Has(&report), Is(""));
    for (line, nodes, divided) in [
        ("perft startpos 2 --json --divide", 81, Some(9)),
        ("perft startpos 0 --json", 1, None),
    ] {
        let output = run(line, 0, Has(&[]), Is(""));
        let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(report["nodes"], nodes);
        assert_eq!(report["divide"].as_array().map(Vec::len), divided);
    }
    let says = ["square 51 is outside 1..=50"];
    run("perft W:W31-51:B1-20 3", 2, Is(""), Has(&says));
    // No legal move for the side to move: no leaf below the root, at once.
    run(
        "perft W:W:B1 3 --threads 2",
        0,
        Has(&["nodes    0\n"]),
        Is(""),
    );
}

/// A DXP name that does not fit the protocol is refused, not cut.
#[test]
fn a_name_that_does_not_fit_is_refused() {
    let long = "a".repeat(33);
    let says = ["name of 33 bytes, at most 32 allowed"];
    run(&format!("initiate --name {long}"), 2, Is(""), Has(&says));
}

/// `analyse` as text: the board, one line per depth up to the limit, then the best move,
/// legal in the position; `analyze` is the same command.
#[test]
fn analyse_prints_a_line_per_depth_and_the_best_move() {
    let output = run(
        "analyse startpos --depth 4 --hash 4",
        0,
        Has(&["W:W31,32,33"]),
        Is(""),
    );
    let text = stdout(&output);
    let depths: Vec<u32> = text
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("depth"))
        .skip(1)
        .take_while(|line| !line.starts_with("best move"))
        .map(|line| line.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(depths, [1, 2, 3, 4], "{text}");
    let last = text.lines().last().unwrap();
    let best = last
        .strip_prefix("best move ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("{last}"));
    let start = damx_rules::Position::initial();
    assert!(
        start
            .legal_moves()
            .iter()
            .any(|mv| start.move_text(mv) == best)
    );
    let output = run("analyze startpos --depth 1 --json", 0, Has(&[]), Is(""));
    assert_eq!(json_lines(&stdout(&output)).len(), 2);
}

/// `--contempt N` scores a draw N centi-men below zero for the side the engine searches for
/// (a king against a king is a draw within the depth); beyond a man either way it is refused.
#[test]
fn contempt_moves_the_score_of_a_draw() {
    let line = |contempt: &str| {
        let output = run(
            &format!("analyse W:WK26:BK25 --depth 16 --hash 4 --egdb off --contempt={contempt}"),
            0,
            Has(&[]),
            Is(""),
        );
        stdout(&output)
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        line("20").contains("score -0.20 at depth 16"),
        "{}",
        line("20")
    );
    assert!(line("-20").contains("score +0.20"), "{}", line("-20"));
    assert!(line("0").contains("score 0.00"), "{}", line("0"));
    run(
        "analyse startpos --depth 1 --contempt 101",
        2,
        Is(""),
        Has(&["--contempt"]),
    );
}

/// A PDN file gives the position of `--game` after `--ply` plies (the choice itself:
/// damx-rules' `pdn::game_at` tests); a position without a legal move has no best move, an
/// answer rather than an error; bad input: a missing file (3), a PDN with an illegal move
/// (1), a game or ply the file does not have and options that need a PDN file (2), a bad
/// FEN (2, clap's message).
#[test]
fn analyse_positions_from_files_and_bad_input() {
    let dir = TempDir::new("analyse");
    let pdn = dir.file(
        "game.pdn",
        "1. 32-28 *\n\n1. 33-28 19-23 2. 28x19 14x23 *\n",
    );
    let args = "--game 2 --ply 2 --depth 2 --json --hash 4";
    let output = run(&format!("analyse {pdn} {args}"), 0, Has(&[]), Is(""));
    let start = damx_rules::Position::initial();
    let after = start.play(&start.parse_move("33-28").unwrap());
    let after = after.play(&after.parse_move("19-23").unwrap());
    assert_eq!(
        json_lines(&stdout(&output)).last().unwrap()["fen"],
        after.to_fen()
    );

    // `-` reads the PDN from standard input (Latin-1 names and all).
    let output = damx_with_input(
        &["analyse", "-", "--depth", "2", "--json", "--hash", "4"],
        b"[White \"Ren\xe9\"]\n1. 33-28 19-23 *\n",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        json_lines(&stdout(&output)).last().unwrap()["fen"],
        after.to_fen()
    );

    let lost = "no legal move: white to move has lost\n";
    run("analyse W:W46:B37,41 --depth 3", 0, Has(&[lost]), Is(""));
    let output = run("analyse W:W46:B37,41 --depth 3 --json", 0, Has(&[]), Is(""));
    let lines = json_lines(&stdout(&output));
    assert!(
        lines.len() == 1 && lines[0]["best_move"].is_null(),
        "{lines:?}"
    );
    // Lost on the spot is a loss in 0, as the text says, not a win.
    assert_eq!(
        lines[0]["score"],
        serde_json::json!({"loss_in": 0}),
        "{lines:?}"
    );

    let missing = dir.path("missing.pdn");
    let illegal = dir.file("illegal.pdn", "1. 32-28 19-23 2. 32-27 *\n");
    let short = dir.file("short.pdn", "1. 32-28 19-23 *\n");
    for (args, exit, says) in [
        (missing, 3, Ours(&["no such file or directory"])),
        (illegal, 1, Ours(&["game 1, line 1"])),
        (format!("{short} --game 2"), 2, Ours(&["holds 1 game"])),
        (format!("{short} --ply 3"), 2, Ours(&["has 2 plies"])),
        ("startpos --ply 1".into(), 2, Ours(&["PDN file"])),
        ("W:W31-55:B1-20".into(), 2, Has(&["55"])),
    ] {
        run(&format!("analyse {args} --depth 1"), exit, Is(""), says);
    }
}

/// The bench prints the engine's own node count (the behaviour signature), as text or JSON
/// (the report itself: damx-engine's tests).
#[test]
fn bench_prints_the_engines_signature() {
    let expected = damx_engine::bench(&damx_engine::BenchOptions {
        depth: 2,
        ..damx_engine::BenchOptions::default()
    });
    let nodes = format!("\nnodes    {}\n", expected.nodes);
    run("bench --depth 2", 0, Has(&[&nodes]), Is(""));
    let output = run("bench --depth 2 --json --threads 1", 0, Has(&[]), Is(""));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["nodes"], expected.nodes);
}
