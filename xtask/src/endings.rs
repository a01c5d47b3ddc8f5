//! `cargo xtask endings`: the engine converts the built-in won endings in self-play, by the
//! rules, and the count of converted ones is printed.

use std::time::Instant;

use anyhow::{Context, bail};
use damx_engine::endings::{WON_ENDINGS, convert};

use crate::args;
use crate::players::{self, Kind, Spec};

pub(crate) const ABOUT: &str = "\
play each built-in won ending (damx_engine::endings) out with the engine on both sides, by the
rules (the 25-, 16- and 5-move rules and repetition end a game as a draw), and print for each
whether the winning side won and in how many plies, then the number converted. PLAYER is engine
settings as for `strength` (default time=200: 200 ms a move); ONLY runs the endings whose name
contains the text.";

pub(crate) const ARGS: &str = "[--player SPEC] [--only TEXT]";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut player = "time=200".to_string();
    let mut only = None;
    for (name, value) in args::named(args, &["player", "only"])? {
        match name {
            "player" => player = value.to_string(),
            _ => only = Some(value.to_string()),
        }
    }
    let spec = Spec::parse(&player)?;
    let Kind::Engine(options, limits) = &spec.kind else {
        bail!("the player must be the engine, not `{player}`");
    };
    if spec.game_time.is_some() {
        bail!("the endings are played a move at a time: use time=MS, depth=N or nodes=N");
    }
    println!("endings: {}, load {}", limits, players::load_average());
    let start = Instant::now();
    let (mut converted, mut played, mut plies) = (0, 0, 0);
    for ending in WON_ENDINGS.iter().filter(|ending| {
        only.as_ref()
            .is_none_or(|text| ending.name.contains(text.as_str()))
    }) {
        let record = convert(ending, options, limits)
            .with_context(|| format!("the ending `{}`", ending.name))?;
        played += 1;
        if record.converted {
            converted += 1;
            plies += record.plies;
        }
        println!("  {:<44} {:<28} {}", ending.name, ending.fen, record);
    }
    if played == 0 {
        bail!("no ending matches");
    }
    println!(
        "converted {converted} of {played}{} in {:.1?}",
        if converted > 0 {
            format!(
                ", {:.1} plies on average",
                plies as f64 / f64::from(converted)
            )
        } else {
            String::new()
        },
        start.elapsed()
    );
    Ok(())
}
