//! Runs the real `damx` binary and checks its output and exit codes, command by command,
//! valid and invalid input alike.

use std::io::Write;
use std::process::{Command, Output, Stdio};

mod common;
use common::{TempDir, code, damx, damx_line, damx_with_input, stderr, stdout};

/// Every line on standard error is one of ours: `damx: ` and a lower-case message.
fn assert_our_error_lines(output: &Output) {
    let text = stderr(output);
    assert!(!text.is_empty(), "expected an error on stderr");
    for line in text.lines() {
        let message = line
            .strip_prefix("damx: ")
            .unwrap_or_else(|| panic!("not a damx error line: {line:?}"));
        assert!(
            !message.starts_with(char::is_uppercase),
            "not lower case: {line:?}"
        );
    }
}

/// Some of the spec's test vectors (dxp.md §5) and their JSON (damx-wire's serde shape; its
/// tests hold every vector).
const VECTORS: &[(&str, &str)] = &[
    (
        "R01Tornado voor Windows 4.0        W060065A",
        r#"{"type":"gamereq","version":1,"initiator":"Tornado voor Windows 4.0","follower_color":"white","minutes":60,"move_limit":65}"#,
    ),
    (
        "M001205250422122320",
        r#"{"type":"move","seconds":12,"from":5,"to":25,"captured":[22,12,23,20]}"#,
    ),
    ("K1", r#"{"type":"backacc","code":"not_supported"}"#),
];

/// The wire texts of the vectors, one a line.
fn wire_lines() -> String {
    VECTORS
        .iter()
        .map(|(wire, _)| format!("{wire}\n"))
        .collect()
}

/// Their JSON, one a line.
fn json_lines() -> String {
    VECTORS
        .iter()
        .map(|(_, json)| format!("{json}\n"))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The skeleton

/// `--version` names the program and its version.
#[test]
fn version_names_the_program() {
    let output = damx_line("--version");
    assert_eq!(code(&output), 0);
    assert_eq!(
        stdout(&output).trim(),
        format!("damx {}", env!("CARGO_PKG_VERSION"))
    );
}

/// The overview lists the commands and the exit codes.
#[test]
fn help_lists_the_commands_and_the_exit_codes() {
    let output = damx_line("--help");
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    for command in ["decode", "encode", "analyse", "perft", "bench"] {
        assert!(text.contains(command), "{command} missing from:\n{text}");
    }
    assert!(text.contains("Exit codes:"), "{text}");
}

/// Every command's long help ends with a copy-paste example of that command.
#[test]
fn every_command_has_an_example_in_its_help() {
    for command in ["decode", "encode", "analyse", "perft", "bench"] {
        let output = damx(&[command, "--help"]);
        assert_eq!(code(&output), 0, "{command}");
        let text = stdout(&output);
        assert!(text.contains("Examples:"), "{command}:\n{text}");
        assert!(
            text.contains(&format!("  damx {command} ")),
            "{command}:\n{text}"
        );
    }
}

/// A wrong command line is clap's usage error: exit code 2.
#[test]
fn usage_errors_exit_with_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["perft", "startpos"],
        &["perft", "startpos", "many"],
        &["decode", "--frames", "E00"],
        &["decode", "-v", "-q", "E00"],
    ] {
        let output = damx(args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// `-v` tells what is being done; `-q` keeps problems only.
#[test]
fn verbosity_is_chosen_by_v_and_q() {
    let quiet = damx_line("-q decode E00");
    assert_eq!(code(&quiet), 0);
    assert!(quiet.stderr.is_empty());
    let verbose = damx_line("decode E00 -v");
    assert_eq!(code(&verbose), 0);
    assert_eq!(stderr(&verbose), "damx: 1 of 1 messages decoded\n");
    // Problems with the input show even when quiet.
    let quiet_invalid = damx_line("-q decode X");
    assert_eq!(code(&quiet_invalid), 1);
    assert_our_error_lines(&quiet_invalid);
}

/// A reader that stops reading (`damx decode | head -1`) ends the command quietly.
#[test]
fn a_closed_standard_output_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damx"))
        .arg("decode")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the damx binary starts");
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

// ---------------------------------------------------------------------------------------------
// decode

/// Every spec vector decodes to its JSON, from arguments and from standard input alike.
#[test]
fn decode_turns_the_spec_vectors_into_json_lines() {
    let arguments: Vec<&str> = std::iter::once("decode")
        .chain(VECTORS.iter().map(|v| v.0))
        .collect();
    let output = damx(&arguments);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), json_lines());
    assert!(output.stderr.is_empty());

    let output = damx_with_input(&["decode"], wire_lines().as_bytes());
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), json_lines());
}

/// Invalid lines are named (line number, text, message kind, byte, problem) and the exit
/// code is 1, while the valid lines around them are still converted.
#[test]
fn decode_names_each_invalid_line_and_converts_the_rest() {
    let input = "E00\nM0012x61100\r\n\nK1\nX12\nM00120611\nK1 \n";
    let output = damx_with_input(&["decode"], input.as_bytes());
    assert_eq!(code(&output), 1);
    assert_eq!(
        stdout(&output),
        concat!(
            r#"{"type":"gameend","reason":"no_reason","stop":"continue"}"#,
            "\n",
            r#"{"type":"backacc","code":"not_supported"}"#,
            "\n"
        )
    );
    assert_our_error_lines(&output);
    assert_eq!(
        stderr(&output),
        "damx: line 2: \"M0012x61100\": MOVE: byte 5: expected a digit, found 'x'\n\
         damx: line 5: \"X12\": byte 0: unknown message kind 'X'\n\
         damx: line 6: \"M00120611\": MOVE: byte 9: expected at least 11 bytes, found 9\n\
         damx: line 7: \"K1 \": BACKACC: byte 2: expected 2 bytes, found 3\n\
         damx: 4 of 6 messages could not be decoded\n"
    );
}

/// An argument that is not a message is named by its position among the arguments.
#[test]
fn decode_names_invalid_arguments_by_position() {
    let output = damx_line("decode E00 E09");
    assert_eq!(code(&output), 1);
    assert_eq!(stdout(&output).lines().count(), 1);
    let errors = stderr(&output);
    assert!(
        errors.starts_with("damx: argument 2: \"E09\": GAMEEND: byte 2:"),
        "{errors}"
    );
}

/// With `--frames`, a raw NUL-framed stream (frames merged as in one TCP read, an empty
/// frame, a non-ASCII frame, a cut-off end) is decoded frame by frame, with byte offsets.
#[test]
fn decode_reads_a_nul_framed_stream() {
    let stream = b"E00\0K1\0\0M0012061100\0\xffab\0CHello";
    let output = damx_with_input(&["decode", "--frames"], stream);
    assert_eq!(code(&output), 1);
    let lines: Vec<String> = stdout(&output).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[2].contains(r#""from":6"#), "{lines:?}");
    assert_our_error_lines(&output);
    assert_eq!(
        stderr(&output),
        "damx: frame 3 (byte 7): \"\": empty frame: a NUL with no message before it\n\
         damx: frame 5 (byte 20): \"\\xffab\": frame byte 0: 0xff is not 7-bit ASCII\n\
         damx: frame 6 (byte 24): \"CHello\": stream ended inside a frame (6 bytes without a NUL)\n\
         damx: 3 of 6 messages could not be decoded\n"
    );
}

/// `--file` reads the messages from a file; a missing file is an I/O error, exit code 3.
#[test]
fn decode_reads_a_file_and_reports_a_missing_one() {
    let dir = std::env::temp_dir().join(format!("damx-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("messages.txt");
    std::fs::write(&path, wire_lines()).unwrap();
    let output = damx(&["decode", "--file", path.to_str().unwrap()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), json_lines());

    let missing = dir.join("missing.txt");
    let output = damx(&["decode", "-f", missing.to_str().unwrap()]);
    assert_eq!(code(&output), 3);
    assert_our_error_lines(&output);
    assert_eq!(
        stderr(&output),
        format!(
            "damx: cannot open {}: no such file or directory\n",
            missing.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// encode

/// The JSON of every spec vector encodes to exactly its wire text.
#[test]
fn encode_turns_json_lines_into_the_spec_vectors() {
    let output = damx_with_input(&["encode"], json_lines().as_bytes());
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), wire_lines());
}

/// decode and encode are inverse: wire text through both comes back byte for byte.
#[test]
fn decode_then_encode_gives_back_the_bytes() {
    let decoded = damx_with_input(&["decode"], wire_lines().as_bytes());
    let encoded = damx_with_input(&["encode"], &decoded.stdout);
    assert_eq!(code(&encoded), 0, "{}", stderr(&encoded));
    assert_eq!(stdout(&encoded), wire_lines());
}

/// `--frames` writes each message with its NUL, ready for a socket.
#[test]
fn encode_writes_frames() {
    let output = damx(&[
        "encode",
        "--frames",
        r#"{"type":"gameend","reason":"give_up","stop":"stop"}"#,
        r#"{"type":"backacc","code":"accepted"}"#,
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(output.stdout, b"E11\0K0\0");
}

/// Invalid JSON objects and values the wire cannot carry are named; the rest are encoded.
#[test]
fn encode_names_each_invalid_line_and_converts_the_rest() {
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
    let output = damx_with_input(&["encode"], input.as_bytes());
    assert_eq!(code(&output), 1);
    assert_eq!(stdout(&output), "E20\nK2\n");
    assert_our_error_lines(&output);
    let errors = stderr(&output);
    let lines: Vec<&str> = errors.lines().collect();
    assert_eq!(lines.len(), 4, "{errors}");
    assert!(lines[0].starts_with("damx: line 2: "), "{errors}");
    assert!(lines[0].contains("51"), "{errors}");
    assert!(
        lines[1].starts_with("damx: line 3: \"not json\": "),
        "{errors}"
    );
    assert!(lines[2].starts_with("damx: line 4: "), "{errors}");
    assert!(lines[2].contains("--frames"), "{errors}");
    assert_eq!(lines[3], "damx: 3 of 5 messages could not be encoded");
}

// ---------------------------------------------------------------------------------------------
// perft

/// The text report gives the published count (rules.md), the threads, the time and the
/// speed.
#[test]
fn perft_counts_the_start_position() {
    let output = damx_line("perft startpos 5");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // Standard error is a pipe here, not a terminal: no progress display.
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "depth    5");
    assert_eq!(lines[1], "threads  1");
    assert_eq!(lines[2], "nodes    27117");
    assert!(
        lines[3].starts_with("time     ") && lines[3].ends_with(" s"),
        "{text}"
    );
    assert!(
        lines[4].starts_with("speed    ") && lines[4].ends_with(" nodes/s"),
        "{text}"
    );
}

/// `--json --divide` gives one object with the division (its shape: damx-engine's tests);
/// depth 0 counts the root itself.
#[test]
fn perft_writes_json() {
    let output = damx_line("perft startpos 2 --json --divide");
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["nodes"], 81);
    assert_eq!(report["divide"].as_array().map(Vec::len), Some(9));
    let output = damx_line("perft startpos 0 --json");
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["nodes"], 1);
}

/// A FEN that does not parse is a usage error that says what is wrong with it.
#[test]
fn perft_refuses_an_invalid_fen() {
    let output = damx_line("perft W:W31-51:B1-20 3");
    assert_eq!(code(&output), 2);
    assert!(output.stdout.is_empty());
    let errors = stderr(&output);
    assert!(errors.contains("square 51 is outside 1..=50"), "{errors}");
}

// ---------------------------------------------------------------------------------------------
// analyse

/// The JSON lines of `analyse --json`, each parsed.
fn json_values(output: &Output) -> Vec<serde_json::Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// Whether `text` is a legal move of `position` written as the rules crate writes it.
fn is_legal_move_text(position: &damx_rules::Position, text: &str) -> bool {
    position
        .legal_moves()
        .iter()
        .any(|mv| position.move_text(mv) == text)
}

/// Text output: the board, one line per depth up to the limit, then the best move, legal in
/// the position.
#[test]
fn analyse_prints_a_line_per_depth_and_the_best_move() {
    let output = damx_line("analyse startpos --depth 4 --hash 4");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("W:W31,32,33"), "{text}");
    let depths: Vec<u32> = text
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("depth"))
        .skip(1)
        .take_while(|line| !line.starts_with("best move"))
        .map(|line| line.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(depths, [1, 2, 3, 4], "{text}");
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
    let last = text.lines().last().unwrap();
    let best = last
        .strip_prefix("best move ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("{last}"));
    assert!(
        is_legal_move_text(&damx_rules::Position::initial(), best),
        "{last}"
    );
}

/// The American spelling is the same command.
#[test]
fn analyze_is_analyse() {
    let output = damx_line("analyze startpos --depth 1 --json");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(json_values(&output).len(), 2);
}

/// A PDN file gives the position of `--game` after `--ply` plies (the choice itself:
/// damx-rules' `pdn::game_at` tests).
#[test]
fn analyse_takes_a_position_from_a_pdn_file() {
    let dir = TempDir::new("analyse-pdn");
    let pdn = dir.file(
        "game.pdn",
        "1. 32-28 *\n\n1. 33-28 19-23 2. 28x19 14x23 *\n",
    );
    let args = [
        "--game", "2", "--ply", "2", "--depth", "2", "--json", "--hash", "4",
    ];
    let output = damx(&[&["analyse", pdn.as_str()][..], &args].concat());
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let lines = json_values(&output);
    let start = damx_rules::Position::initial();
    let after = start.play(&start.parse_move("33-28").unwrap());
    let after = after.play(&after.parse_move("19-23").unwrap());
    assert_eq!(lines.last().unwrap()["fen"], after.to_fen());
}

/// A position without a legal move has no best move; that is an answer, not an error.
#[test]
fn analyse_of_a_lost_position_has_no_best_move() {
    let output = damx_line("analyse W:W46:B37,41 --depth 3");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout(&output).lines().last(),
        Some("no legal move: white to move has lost")
    );
    let output = damx_line("analyse W:W46:B37,41 --depth 3 --json");
    let lines = json_values(&output);
    assert_eq!(lines.len(), 1);
    assert!(lines[0]["best_move"].is_null());
}

/// Bad input: a missing file (3), a PDN with an illegal move (1), a game or ply the file does
/// not have and options that need a PDN file (2), a bad FEN (2).
#[test]
fn analyse_reports_bad_input_with_its_exit_code() {
    let dir = TempDir::new("analyse-bad");
    let missing = dir.0.join("missing.pdn");
    let illegal = dir.file("illegal.pdn", "1. 32-28 19-23 2. 32-27 *\n");
    let short = dir.file("short.pdn", "1. 32-28 19-23 *\n");
    // (arguments, exit code, what stderr says, whether the message is ours rather than clap's)
    let cases: [(Vec<&str>, i32, &str, bool); 6] = [
        (
            vec![missing.to_str().unwrap()],
            3,
            "no such file or directory",
            true,
        ),
        (vec![illegal.as_str()], 1, "game 1, line 1", true),
        (vec![short.as_str(), "--game", "2"], 2, "holds 1 game", true),
        (vec![short.as_str(), "--ply", "3"], 2, "has 2 plies", true),
        (vec!["startpos", "--ply", "1"], 2, "PDN file", true),
        (vec!["W:W31-55:B1-20"], 2, "55", false),
    ];
    for (args, expected, says, ours) in cases {
        let mut all = vec!["analyse"];
        all.extend(args.iter().copied());
        all.extend(["--depth", "1"]);
        let output = damx(&all);
        assert_eq!(code(&output), expected, "{args:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
        if ours {
            assert_our_error_lines(&output);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// bench

/// The bench prints the engine's own node count (the behaviour signature), as text or JSON
/// (the report itself: damx-engine's tests).
#[test]
fn bench_prints_the_engines_signature() {
    let expected = damx_engine::bench(&damx_engine::BenchOptions {
        depth: 2,
        ..damx_engine::BenchOptions::default()
    });
    let output = damx_line("bench --depth 2");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
    let text = stdout(&output);
    let nodes = format!("\nnodes    {}\n", expected.nodes);
    assert!(text.contains(&nodes), "expected {nodes}:\n{text}");
    let output = damx_line("bench --depth 2 --json --threads 1");
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["nodes"], expected.nodes);
}
