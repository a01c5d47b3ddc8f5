//! `cargo xtask strength`: an in-process gauntlet between two players from the built-in
//! ballots, colours swapped, with the score and an Elo estimate.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use damx_engine::gauntlet::{Player, Tally, play_timed_game};
use damx_engine::openings;
use damx_rules::Color;

use crate::players::{self, Spec};

pub(crate) const ABOUT: &str = "\
play GAMES games (default 200) between players A (default depth=6) and B (default material)
from the built-in ballots, each ballot twice with colours swapped; print A's wins, draws and
losses, its score and an Elo estimate with a 95% margin. CONCURRENCY games run at once
(default: the cores, or 1 if a player uses several threads). Games end by the rules or are
drawn after MAX-PLIES plies (default 400). OFFSET starts at another ballot (default 0).
A SPEC is `random`, `material` or engine settings such as `depth=6,threads=2`: depth=N,
time=MS (a move), game=MS (a game, on a clock: running out loses), nodes=N, threads=N,
hash=MIB, weights=FILE|hand|tuned|pattern (a FILE.dxw holds pattern weights), and lmr, aspiration, extension, threat, pruning, lmp =on|off.";

pub(crate) const ARGS: &str =
    "[--games N] [--a SPEC] [--b SPEC] [--concurrency N] [--max-plies N] [--offset N]";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut games = 200usize;
    let mut a = "depth=6".to_string();
    let mut b = "material".to_string();
    let mut concurrency = None;
    let mut max_plies = 400usize;
    let mut offset = 0usize;
    let number = |value: &str| -> anyhow::Result<usize> {
        value
            .parse()
            .with_context(|| format!("expected a number, got `{value}`"))
    };
    for (name, value) in players::options(
        args,
        &["games", "a", "b", "concurrency", "max-plies", "offset"],
    )? {
        match name {
            "games" => games = number(value)?,
            "a" => a = value.to_string(),
            "b" => b = value.to_string(),
            "concurrency" => concurrency = Some(number(value)?.max(1)),
            "max-plies" => max_plies = number(value)?,
            _ => offset = number(value)?,
        }
    }
    let (a, b) = (Spec::parse(&a)?, Spec::parse(&b)?);
    let ballots = openings::ballots();
    if ballots.is_empty() {
        bail!("no ballots built in");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let concurrency = concurrency.unwrap_or(if a.threads() > 1 || b.threads() > 1 {
        1
    } else {
        cores
    });
    println!(
        "strength: A = {} vs B = {}, {games} games, {concurrency} at once, load {}",
        a.text,
        b.text,
        players::load_average()
    );

    let next = AtomicUsize::new(0);
    let lost_on_time = AtomicUsize::new(0);
    // A's results as White and as Black.
    let results = Mutex::new((Tally::default(), Tally::default()));
    let start = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..concurrency {
            let (a, b, next, results, lost_on_time) = (&a, &b, &next, &results, &lost_on_time);
            scope.spawn(move || {
                let seed = worker as u64 * 1_000_003;
                let mut player_a = a.build(seed + 1);
                let mut player_b = b.build(seed + 2);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    let ballot = &ballots[(offset + index / 2) % ballots.len()];
                    let a_colour = if index % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let seat_a = (player_a.as_mut() as &mut dyn Player, a.game_time);
                    let seat_b = (player_b.as_mut() as &mut dyn Player, b.game_time);
                    let seats = match a_colour {
                        Color::White => [seat_a, seat_b],
                        Color::Black => [seat_b, seat_a],
                    };
                    let record = play_timed_game(seats, &ballot.game(), max_plies);
                    if record.lost_on_time.is_some() {
                        lost_on_time.fetch_add(1, Ordering::Relaxed);
                    }
                    let a_won = record.winner().map(|winner| winner == a_colour);
                    let mut results = results.lock().unwrap_or_else(|e| e.into_inner());
                    match a_colour {
                        Color::White => results.0.add(a_won),
                        Color::Black => results.1.add(a_won),
                    }
                    let done = results.0.games() + results.1.games();
                    if done.is_multiple_of(20) || done as usize == games {
                        let total = total(&results);
                        println!("  {done:>5} games  A {total}  [{:.0?}]", start.elapsed());
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let all = total(&results);
    println!("A as White: {}", results.0);
    println!("A as Black: {}", results.1);
    println!("A = {} vs B = {}", a.text, b.text);
    println!("A: {all}");
    let flagged = lost_on_time.into_inner();
    if flagged > 0 {
        println!("{flagged} games lost on time");
    }
    println!(
        "{} games in {:.1?}, load {}",
        all.games(),
        start.elapsed(),
        players::load_average()
    );
    Ok(())
}

fn total(results: &(Tally, Tally)) -> Tally {
    Tally {
        wins: results.0.wins + results.1.wins,
        draws: results.0.draws + results.1.draws,
        losses: results.0.losses + results.1.losses,
    }
}
