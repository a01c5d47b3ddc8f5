//! Runs the real `damx` binary and checks its output and exit codes, command by command,
//! valid and invalid input alike.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `damx` with `args` and `stdin` as its standard input.
fn damx_with_input(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damx"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the damx binary starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_vec();
    // Written from a thread so that a large input cannot block against a full output pipe.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("damx runs to the end");
    writer.join().expect("the input is written");
    output
}

/// Runs `damx` with `args` and an empty standard input.
fn damx(args: &[&str]) -> Output {
    damx_with_input(args, b"")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("damx exits with a code")
}

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

/// The spec's test vectors (dxp.md §5) and their JSON (damx-wire's serde shape).
const VECTORS: &[(&str, &str)] = &[
    (
        "R01Tornado voor Windows 4.0        W060065A",
        r#"{"type":"gamereq","version":1,"initiator":"Tornado voor Windows 4.0","follower_color":"white","minutes":60,"move_limit":65}"#,
    ),
    (
        "R01Tornado voor Windows 4.0        W060065BWzzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
        r#"{"type":"gamereq","version":1,"initiator":"Tornado voor Windows 4.0","follower_color":"white","minutes":60,"move_limit":65,"to_move":"white","position":"zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww"}"#,
    ),
    (
        "ATornado voor Windows 4.0        0",
        r#"{"type":"gameacc","follower":"Tornado voor Windows 4.0","code":"accepted"}"#,
    ),
    (
        "M0012061100",
        r#"{"type":"move","seconds":12,"from":6,"to":11,"captured":[]}"#,
    ),
    (
        "M001205250422122320",
        r#"{"type":"move","seconds":12,"from":5,"to":25,"captured":[22,12,23,20]}"#,
    ),
    (
        "M0000380703122333",
        r#"{"type":"move","seconds":0,"from":38,"to":7,"captured":[12,23,33]}"#,
    ),
    (
        "E00",
        r#"{"type":"gameend","reason":"no_reason","stop":"continue"}"#,
    ),
    (
        "CWhat do you think about move 35?",
        r#"{"type":"chat","text":"What do you think about move 35?"}"#,
    ),
    (
        "B005Z",
        r#"{"type":"backreq","move_number":5,"to_move":"black"}"#,
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
    let output = damx(&["--version"]);
    assert_eq!(code(&output), 0);
    assert_eq!(
        stdout(&output).trim(),
        format!("damx {}", env!("CARGO_PKG_VERSION"))
    );
}

/// The overview lists the commands and the exit codes.
#[test]
fn help_lists_the_commands_and_the_exit_codes() {
    let output = damx(&["--help"]);
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    for command in ["decode", "encode", "perft"] {
        assert!(text.contains(command), "{command} missing from:\n{text}");
    }
    assert!(text.contains("Exit codes:"), "{text}");
}

/// Every command's long help ends with a copy-paste example of that command.
#[test]
fn every_command_has_an_example_in_its_help() {
    for command in ["decode", "encode", "perft"] {
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
    let quiet = damx(&["-q", "decode", "E00"]);
    assert_eq!(code(&quiet), 0);
    assert!(quiet.stderr.is_empty());
    let verbose = damx(&["decode", "E00", "-v"]);
    assert_eq!(code(&verbose), 0);
    assert_eq!(stderr(&verbose), "damx: 1 of 1 messages decoded\n");
    // Problems with the input show even when quiet.
    let quiet_invalid = damx(&["-q", "decode", "X"]);
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
    let output = damx(&["decode", "E00", "E09"]);
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

/// The text report gives the published count (rules.md), the time and the speed.
#[test]
fn perft_counts_the_start_position() {
    let output = damx(&["perft", "startpos", "5"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "depth  5");
    assert_eq!(lines[1], "nodes  27117");
    assert!(
        lines[2].starts_with("time   ") && lines[2].ends_with(" s"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("speed  ") && lines[3].ends_with(" nodes/s"),
        "{text}"
    );
}

/// `--divide` lists each legal move with its count, and the counts add up.
#[test]
fn perft_divides_by_root_move() {
    // Woldouby (rules.md): 6 moves, 12 at depth 2, 30 at depth 3.
    let fen = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";
    let output = damx(&["perft", fen, "3", "--divide"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let (rows, summary) = text
        .split_once("\n\n")
        .expect("a blank line after the rows");
    let counts: Vec<u64> = rows
        .lines()
        .map(|row| row.split_whitespace().last().unwrap().parse().unwrap())
        .collect();
    assert_eq!(counts.len(), 6, "{text}");
    assert_eq!(counts.iter().sum::<u64>(), 30);
    assert!(summary.contains("nodes  30\n"), "{text}");
}

/// `--json` gives one object with the FEN, depth, nodes, time, speed and the division.
#[test]
fn perft_writes_json() {
    let output = damx(&["perft", "W:WK31-50:BK1-20", "2", "--json", "--divide"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["depth"], 2);
    assert_eq!(report["nodes"], 79);
    assert!(report["fen"].as_str().unwrap().starts_with("W:WK31,K32"));
    assert!(report["seconds"].is_f64());
    assert!(report["nodes_per_second"].is_u64());
    let divide = report["divide"].as_array().unwrap();
    assert_eq!(divide.len(), 17);
    let sum: u64 = divide
        .iter()
        .map(|row| row["nodes"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, 79);
    assert!(divide[0]["move"].is_string());
}

/// Depth 0 counts the root itself.
#[test]
fn perft_at_depth_zero_is_one() {
    let output = damx(&["perft", "startpos", "0", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["nodes"], 1);
}

/// A FEN that does not parse is a usage error that says what is wrong with it.
#[test]
fn perft_refuses_an_invalid_fen() {
    let output = damx(&["perft", "W:W31-51:B1-20", "3"]);
    assert_eq!(code(&output), 2);
    assert!(output.stdout.is_empty());
    let errors = stderr(&output);
    assert!(errors.contains("square 51 is outside 1..=50"), "{errors}");
}
