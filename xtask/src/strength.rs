//! `cargo xtask strength`: an in-process gauntlet between two players from the built-in
//! ballots (or the positions of a file), colours swapped, with the score and an Elo estimate.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use damx_engine::gauntlet::{Contender, Tally, play_timed_game};
use damx_engine::openings;
use damx_rules::{Color, Game};
use damx_session::tournament::{Hypothesis, OpeningSource, PairBook, SprtConfig};

use crate::args;
use crate::players::{self, Spec};

pub(crate) const ABOUT: &str = concat!(
    "\
play GAMES games (default 200) between players A (default depth=6) and B (default material)
from the built-in ballots, each ballot twice with colours swapped; print A's wins, draws and
losses, its score and an Elo estimate with a 95% margin. CONCURRENCY games run at once
(default: the cores, or 1 if a player uses several threads). Games end by the rules or are
drawn after MAX-PLIES plies (default 400). OFFSET starts at another ballot (default 0).
OPENINGS is a file of FEN lines or PDN games to start from instead of the ballots (for
example endings, from `cargo xtask train endings`), each twice, colours swapped.
With --sprt SPEC (elo0=0,elo1=10,alpha=0.05,beta=0.05, or any subset) A is tested against
B by pairs of games (the two games of an opening; the pentanomial model): games go on until
the test accepts H0 or H1, or GAMES run out or MAX-MINUTES pass (then it is undecided); the
LLR is printed with the running score, the verdict at the end.
On a game clock (game=MS) running out of time loses. A SPEC such as `depth=6,threads=2`:
",
    crate::players::spec_help!()
);

pub(crate) const ARGS: &str = "[--games N] [--a SPEC] [--b SPEC] [--concurrency N] [--max-plies N] [--offset N] \
[--sprt SPEC] [--max-minutes M] [--openings FILE]";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut games = 200usize;
    let mut a = "depth=6".to_string();
    let mut b = "material".to_string();
    let mut concurrency = None;
    let mut max_plies = 400usize;
    let mut offset = 0usize;
    let mut sprt = None;
    let mut max_time = None;
    let mut openings_file = None;
    let number = |value: &str| -> anyhow::Result<usize> {
        value
            .parse()
            .with_context(|| format!("expected a number, got `{value}`"))
    };
    for (name, value) in args::named(
        args,
        &[
            "games",
            "a",
            "b",
            "concurrency",
            "max-plies",
            "offset",
            "sprt",
            "max-minutes",
            "openings",
        ],
    )? {
        match name {
            "games" => games = number(value)?,
            "a" => a = value.to_string(),
            "b" => b = value.to_string(),
            "concurrency" => concurrency = Some(number(value)?.max(1)),
            "max-plies" => max_plies = number(value)?,
            "sprt" => sprt = Some(parse_sprt(value)?),
            "openings" => openings_file = Some(value.to_string()),
            "max-minutes" => {
                let minutes: f64 = value
                    .parse()
                    .ok()
                    .filter(|m: &f64| m.is_finite() && *m > 0.0)
                    .with_context(|| format!("expected a positive number, got `{value}`"))?;
                max_time = Some(Duration::from_secs_f64(minutes * 60.0));
            }
            _ => offset = number(value)?,
        }
    }
    let (a, b) = (Spec::parse(&a)?, Spec::parse(&b)?);
    let starts = match &openings_file {
        Some(path) => OpeningSource::File(path.into())
            .positions(None)
            .with_context(|| format!("the openings of {path}"))?
            .into_iter()
            .map(Game::new)
            .collect(),
        None => openings::ballots()
            .iter()
            .map(|ballot| ballot.game())
            .collect::<Vec<_>>(),
    };
    if starts.is_empty() {
        bail!("no openings");
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

    if let Some(sprt) = &sprt {
        let (lower, upper) = sprt.bounds();
        println!(
            "sprt: elo0 {} elo1 {} alpha {} beta {}, bounds {lower:.2} {upper:.2}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        );
    }

    let next = AtomicUsize::new(0);
    // Raised when the test has decided or the time is up: no new game starts.
    let done = AtomicBool::new(false);
    // Games lost on time by A and by B.
    let lost_on_time = [AtomicUsize::new(0), AtomicUsize::new(0)];
    // Clock time used by A and by B, over the games played on a clock.
    let clock_use = Mutex::new(ClockUse::default());
    // A's results as White and as Black, and by pairs of games (the SPRT's measure).
    let results = Mutex::new((Tally::default(), Tally::default(), PairBook::default()));
    let start = Instant::now();
    let starts = &starts;
    std::thread::scope(|scope| {
        for worker in 0..concurrency {
            let (a, b, next, results, lost_on_time, clock_use, done, sprt) = (
                &a,
                &b,
                &next,
                &results,
                &lost_on_time,
                &clock_use,
                &done,
                &sprt,
            );
            scope.spawn(move || {
                let seed = worker as u64 * 1_000_003;
                let mut player_a = a.build(seed + 1);
                let mut player_b = b.build(seed + 2);
                loop {
                    if max_time.is_some_and(|limit| start.elapsed() >= limit) {
                        done.store(true, Ordering::Relaxed);
                    }
                    if done.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    let start_game = &starts[(offset + index / 2) % starts.len()];
                    let a_colour = if index % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let seat_a = (player_a.as_mut() as &mut dyn Contender, a.game_time);
                    let seat_b = (player_b.as_mut() as &mut dyn Contender, b.game_time);
                    let seats = match a_colour {
                        Color::White => [seat_a, seat_b],
                        Color::Black => [seat_b, seat_a],
                    };
                    let record = play_timed_game(seats, start_game, max_plies);
                    if let Some(loser) = record.lost_on_time {
                        let seat = usize::from(loser != a_colour);
                        lost_on_time[seat].fetch_add(1, Ordering::Relaxed);
                    }
                    let side_of_a = usize::from(a_colour == Color::Black);
                    clock_use.lock().unwrap_or_else(|e| e.into_inner()).add(
                        record.time_used[side_of_a],
                        record.time_used[1 - side_of_a],
                        record.game.moves().len(),
                    );
                    let a_won = record.winner().map(|winner| winner == a_colour);
                    let mut results = results.lock().unwrap_or_else(|e| e.into_inner());
                    match a_colour {
                        Color::White => results.0.add(a_won),
                        Color::Black => results.1.add(a_won),
                    }
                    results.2.add(index as u64, a_won);
                    let played = results.0.games() + results.1.games();
                    let total = total(&results);
                    let pairs = results.2.pentanomial();
                    let status = sprt.as_ref().map(|sprt| sprt.status(&pairs));
                    if status.is_some_and(|status| status.verdict.is_some()) {
                        done.store(true, Ordering::Relaxed);
                    }
                    let every = if sprt.is_some() { 10 } else { 20 };
                    if played.is_multiple_of(every) || played as usize == games {
                        let llr = status
                            .map(|status| format!("  llr {:.2}", status.llr))
                            .unwrap_or_default();
                        println!(
                            "  {played:>5} games  A {total}{llr}  [{:.0?}]",
                            start.elapsed()
                        );
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
    println!(
        "A by pairs of games, colours swapped: {}",
        results.2.pentanomial()
    );
    if let Some(sprt) = &sprt {
        let status = sprt.status(&results.2.pentanomial());
        let verdict = match status.verdict {
            Some(Hypothesis::H1) => "H1 accepted (A is better by elo1)",
            Some(Hypothesis::H0) => "H0 accepted (A is not better by elo1)",
            None => "undecided",
        };
        println!(
            "sprt: llr {:.2} (bounds {:.2} {:.2}): {verdict}",
            status.llr, status.lower, status.upper
        );
    }
    let [a_flagged, b_flagged] = lost_on_time.map(AtomicUsize::into_inner);
    if a_flagged + b_flagged > 0 {
        println!("games lost on time: {a_flagged} by A, {b_flagged} by B");
    }
    let clock_use = clock_use.into_inner().unwrap_or_else(|e| e.into_inner());
    if a.game_time.is_some() || b.game_time.is_some() {
        println!("{clock_use}");
    }
    println!(
        "{} games in {:.1?}, load {}",
        all.games(),
        start.elapsed(),
        players::load_average()
    );
    Ok(())
}

/// The clock time each side spent per game, to see how much of its clock a time plan uses.
#[derive(Default)]
struct ClockUse {
    games: u32,
    plies: usize,
    used: [Duration; 2],
    most: [Duration; 2],
}

impl ClockUse {
    fn add(&mut self, a: Duration, b: Duration, plies: usize) {
        self.games += 1;
        self.plies += plies;
        for (side, used) in [a, b].into_iter().enumerate() {
            self.used[side] += used;
            self.most[side] = self.most[side].max(used);
        }
    }
}

/// `time used a game: A 55.1 s on average (57.9 s at most), B ...; 112 plies on average`.
impl std::fmt::Display for ClockUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let games = self.games.max(1);
        write!(f, "time used a game:")?;
        for (side, name) in ["A", "B"].into_iter().enumerate() {
            write!(
                f,
                " {name} {:.1} s on average ({:.1} s at most){}",
                (self.used[side] / games).as_secs_f64(),
                self.most[side].as_secs_f64(),
                if side == 0 { "," } else { ";" }
            )?;
        }
        write!(f, " {} plies on average", self.plies / games as usize)
    }
}

fn total(results: &(Tally, Tally, PairBook)) -> Tally {
    Tally {
        wins: results.0.wins + results.1.wins,
        draws: results.0.draws + results.1.draws,
        losses: results.0.losses + results.1.losses,
    }
}

/// `elo0=0,elo1=10,alpha=0.05,beta=0.05`, any subset (the rest default).
fn parse_sprt(text: &str) -> anyhow::Result<SprtConfig> {
    let mut sprt = SprtConfig::default();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = item
            .split_once('=')
            .with_context(|| format!("`{item}` is not key=value"))?;
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .with_context(|| format!("`{key}` wants a number, got `{value}`"))?;
        match key {
            "elo0" => sprt.elo0 = value,
            "elo1" => sprt.elo1 = value,
            "alpha" => sprt.alpha = value,
            "beta" => sprt.beta = value,
            _ => bail!("unknown sprt setting `{key}` (elo0, elo1, alpha, beta)"),
        }
    }
    if !(sprt.alpha > 0.0 && sprt.alpha < 0.5 && sprt.beta > 0.0 && sprt.beta < 0.5) {
        bail!("alpha and beta must be between 0 and 0.5");
    }
    if sprt.elo1 <= sprt.elo0 {
        bail!("elo1 must be greater than elo0");
    }
    Ok(sprt)
}
