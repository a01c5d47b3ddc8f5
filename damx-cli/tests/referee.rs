//! Runs the real `damx match` and `damx tournament` and checks their output and exit codes:
//! a small match between built-in players, a tournament with a broken external program (the
//! python3 script of damx-session's tests), JSON output, and usage errors.

use std::process::Command;

mod common;
use common::{damx, damx_line, stdout, words};

const QUICK: &str =
    "--minutes 0 --max-moves 40 --adjudicate material --pace 0 --grace 0.3 --move-timeout 2";

/// A match of four games: the schedule, each game's BEGIN and RESULT, the scores, END, then
/// the table; exit code 0.
#[test]
fn a_small_match() {
    let output = damx_line(&format!(
        "match --engine builtin,depth=1,name=engine --engine builtin=random,seed=3 --games 4 \
         --concurrency 2 {QUICK}"
    ));
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = stdout(&output);
    let words: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split(' ').next())
        .collect();
    assert_eq!(words.iter().filter(|w| **w == "GAME").count(), 4);
    assert_eq!(words.iter().filter(|w| **w == "BEGIN").count(), 4);
    assert_eq!(words.iter().filter(|w| **w == "RESULT").count(), 4);
    assert!(text.contains("PARTICIPANT 1 engine engine"), "{text}");
    assert!(text.contains("\nEND complete\n"), "{text}");
    let table = text.split("END complete").nth(1).unwrap();
    assert!(table.contains("rank  name"), "{table}");
    assert!(
        table.contains("engine") && table.contains("random"),
        "{table}"
    );
    assert!(table.contains("games ended by:"), "{table}");
}

/// Records that cannot be saved: a results file on a full disk (`/dev/full`) lets the games
/// go on, with one warning, and the command exits with 3; a results file in a directory that
/// cannot exist is refused before any game.
#[test]
fn records_that_cannot_be_saved_exit_3() {
    let output = damx_line(&format!(
        "match --engine builtin=first --engine builtin=random,seed=3 --games 3 --concurrency 1 \
         --results /dev/full {QUICK}"
    ));
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let text = stdout(&output);
    assert_eq!(text.matches("\nRESULT ").count(), 3, "{text}");
    assert_eq!(
        text.matches("WARNING cannot write /dev/full").count(),
        1,
        "{text}"
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        errors.contains("3 of 3 game records could not be saved"),
        "{errors}"
    );

    let output = damx_line(&format!(
        "match --engine builtin=first --engine builtin=random,seed=3 --games 2 \
         --results /dev/null/results.jsonl {QUICK}"
    ));
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert!(!stdout(&output).contains("BEGIN"), "{output:?}");
}

/// A gauntlet with a program that sends an illegal move: it forfeits both games, the series
/// completes, and --json prints the results lines and the standings.
#[test]
fn a_tournament_with_a_broken_program() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../damx-session/tests/programs/broken_follower.py"
    );
    let broken = format!("name=broken,cmd=python3 {script} illegal --connect {{port}},listen");
    let rest = format!("--engine builtin=first --openings start --json {QUICK}");
    let mut args = words("tournament --format gauntlet --engine builtin,depth=1 --engine");
    args.push(&broken);
    args.extend(words(&rest));
    let output = damx(&args);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 5, "four games and the standings");
    let broken_games: Vec<&serde_json::Value> = lines[..4]
        .iter()
        .filter(|game| game["white"] == "broken" || game["black"] == "broken")
        .collect();
    assert_eq!(broken_games.len(), 2);
    for game in broken_games {
        assert_eq!(game["reason"], "illegal-move", "{game}");
        assert_eq!(game["disqualified"][0], "broken");
    }
    let standings = &lines[4];
    assert_eq!(standings["type"], "standings");
    assert_eq!(standings["end"], "complete");
    assert_eq!(standings["standings"][0]["name"], "damx");
}

/// A program given by a path relative to a relative working directory (`dir=`) starts: the
/// directory is taken from where damx runs, once, not again from inside itself. The program
/// (the illegal-move script) is reached and forfeits on the board, not for failing to start.
#[test]
fn a_program_in_a_relative_directory_starts() {
    let root = std::env::temp_dir().join(format!("damx-relative-dir-{}", std::process::id()));
    let dir = root.join("engines").join("rel");
    std::fs::create_dir_all(&dir).unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../damx-session/tests/programs/broken_follower.py"
    );
    std::fs::copy(script, dir.join("follower.py")).unwrap();
    let engine = "name=rel,cmd=./follower.py illegal --connect {port},dir=engines/rel,listen";
    let rest = format!("--engine builtin,depth=1 --games 2 --openings start --json {QUICK}");
    let mut args = vec!["match", "--engine", engine];
    args.extend(words(&rest));
    let output = Command::new(env!("CARGO_BIN_EXE_damx"))
        .args(&args)
        .current_dir(&root)
        .output()
        .expect("the damx binary runs");
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let games: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON lines"))
        .filter(|line: &serde_json::Value| line["type"] != "standings")
        .collect();
    assert_eq!(games.len(), 2, "{output:?}");
    for game in games {
        assert_eq!(game["reason"], "illegal-move", "{game}");
    }
}

/// Usage mistakes are named on one line with exit code 2.
#[test]
fn usage_errors() {
    for (line, says) in [
        ("match --engine builtin", "a match needs two participants"),
        (
            "match --engine cmd=prog --engine builtin",
            "say how to reach",
        ),
        (
            "tournament --engine builtin --engine cmd=p,connect=127.0.0.1:27531 --concurrency 2",
            "fixed port",
        ),
        (
            "match --engine builtin --engine builtin --sprt elo0=3,elo1=1",
            "elo1",
        ),
    ] {
        let output = damx_line(line);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{line}: {stderr}");
        assert!(stderr.contains(says), "{line}: {stderr}");
    }
}
