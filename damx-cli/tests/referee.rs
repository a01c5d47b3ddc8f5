//! Runs the real `damx match` and `damx tournament` and checks their output and exit codes:
//! a small match between built-in players, a tournament with a broken external program (the
//! python3 script of damx-session's tests), JSON output, records that cannot be saved, and
//! usage errors (what each refuses, and how a program is started: damx-session's tournament
//! tests).

mod common;
use common::Expect::{Has, Is};
use common::{json_lines, run, run_with, stdout, words};

const QUICK: &str =
    "--minutes 0 --max-moves 40 --adjudicate material --pace 0 --grace 0.3 --move-timeout 2";

/// The broken follower script of damx-session's tests.
const BROKEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../damx-session/tests/programs/broken_follower.py"
);

/// A match of four games: the schedule, each game's BEGIN and RESULT, the scores, END, then
/// the table; exit code 0.
#[test]
fn a_small_match() {
    let line = format!(
        "match --engine builtin,depth=1,name=engine --engine builtin=random,seed=3 --games 4 \
         --concurrency 2 {QUICK}"
    );
    let says = ["PARTICIPANT 1 engine engine", "\nEND complete\n"];
    let text = stdout(&run(&line, 0, Has(&says), Has(&[])));
    let first_words: Vec<&str> = text.lines().filter_map(|l| l.split(' ').next()).collect();
    for word in ["GAME", "BEGIN", "RESULT"] {
        assert_eq!(
            first_words.iter().filter(|w| **w == word).count(),
            4,
            "{word}"
        );
    }
    let table = text.split("END complete").nth(1).unwrap();
    for says in ["rank  name", "engine", "random", "games ended by:"] {
        assert!(table.contains(says), "{says}: {table}");
    }
}

/// Records that cannot be saved: a results file on a full disk (`/dev/full`) lets the games
/// go on, with one warning, and the command exits with 3; a results file in a directory that
/// cannot exist is refused before any game.
#[test]
fn records_that_cannot_be_saved_exit_3() {
    let players = "match --engine builtin=first --engine builtin=random,seed=3";
    let line = format!("{players} --games 3 --concurrency 1 --results /dev/full {QUICK}");
    let failed = Has(&["3 of 3 game records could not be saved"]);
    let text = stdout(&run(&line, 3, Has(&[]), failed));
    assert_eq!(text.matches("\nRESULT ").count(), 3, "{text}");
    assert_eq!(
        text.matches("WARNING cannot write /dev/full").count(),
        1,
        "{text}"
    );
    let line = format!("{players} --games 2 --results /dev/null/results.jsonl {QUICK}");
    let output = run(&line, 3, Has(&[]), Has(&[]));
    assert!(!stdout(&output).contains("BEGIN"), "{output:?}");
}

/// A gauntlet with a program that sends an illegal move: it forfeits both games, the series
/// completes, and --json prints the results lines and the standings.
#[test]
fn a_tournament_with_a_broken_program() {
    let broken = format!("name=broken,cmd=python3 {BROKEN} illegal --connect {{port}},listen");
    let rest = format!("--engine builtin=first --openings start --json {QUICK}");
    let mut args = words("tournament --format gauntlet --engine builtin,depth=1 --engine");
    args.push(&broken);
    args.extend(words(&rest));
    let lines = json_lines(&stdout(&run_with(&args, b"", 0, Has(&[]), Has(&[]))));
    assert_eq!(lines.len(), 5, "four games and the standings");
    let broken_games: Vec<_> = lines[..4]
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

/// A mistake in a participant, in the SPRT or in how they fit together is named on one line
/// with exit code 2.
#[test]
fn usage_errors() {
    for (line, says) in [
        ("match --engine builtin", "a match needs two participants"),
        (
            "match --engine cmd=prog --engine builtin",
            "say how to reach",
        ),
        (
            "match --engine builtin --engine builtin --sprt elo0=3,elo1=1",
            "elo1",
        ),
    ] {
        run(line, 2, Is(""), Has(&[says]));
    }
}

/// An engines file that never ends (a device) or is not UTF-8 is refused with exit code 3,
/// naming the file and why, before any game.
#[cfg(unix)]
#[test]
fn engines_files_that_cannot_be_read() {
    run(
        "match --engines /dev/zero",
        3,
        Is(""),
        Has(&["cannot read /dev/zero: longer than"]),
    );
    let file = std::env::temp_dir().join(format!("damx-engines-{}.json", std::process::id()));
    std::fs::write(&file, [0xff, b'[', b']']).unwrap();
    let mut args = words("match --engines");
    let path = file.to_str().unwrap().to_owned();
    args.push(&path);
    run_with(&args, b"", 3, Is(""), Has(&["not UTF-8 text"]));
    std::fs::remove_file(&file).unwrap();
}
