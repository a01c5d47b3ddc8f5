//! `cargo xtask TASK --help` and `cargo xtask help TASK` print that task's usage and succeed,
//! instead of refusing `--help` as an unknown option; an unknown task is still refused.

use std::process::Command;

fn xtask(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("the xtask binary runs")
}

#[test]
fn a_task_tells_its_usage_on_help() {
    for args in [
        &["strength", "--help"][..],
        &["help", "strength"],
        &["endings", "-h"],
    ] {
        let output = xtask(args);
        assert!(output.status.success(), "{args:?}: {output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        let task = if args[0] == "help" { args[1] } else { args[0] };
        assert!(
            text.starts_with(&format!("usage: cargo xtask {task}")),
            "{args:?}: {text}"
        );
        // The one task, not the whole list.
        assert!(!text.contains("conformance"), "{args:?}: {text}");
    }
}

#[test]
fn help_lists_every_task_and_refuses_an_unknown_one() {
    let output = xtask(&["help"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for task in ["conformance", "strength", "train", "versus", "book"] {
        assert!(
            text.contains(&format!("\n  {task}")),
            "{task} missing: {text}"
        );
    }
    let unknown = xtask(&["help", "no-such-task"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown task `no-such-task`"));
}
