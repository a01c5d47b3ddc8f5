//! [`EnginePlayer`]: the damx engine as a session's player.
//!
//! Each move is one [`Engine::search`] of the game so far, stopped by the session's
//! [`StopSignal`] (which is the engine's own type, so nothing is relayed). The limits come from
//! the game: with a clock, the engine budgets our remaining time (less a safety margin for the
//! network and the peer's measurement) over the moves left under the move limit; without a
//! clock, [`EnginePlayerOptions::without_clock`] applies (one second a move by default). A
//! fixed limit ([`EnginePlayerOptions::fixed`], for example a depth) replaces both, for tests
//! and reproducible games. The engine's progress reports can be followed through a channel
//! ([`EnginePlayer::with_progress`]).
//!
//! The engine, and its transposition table, is made when a game starts (on the session's
//! player thread) and dropped when the game is over: a connection that plays no game costs no
//! table, and a server's memory follows the games it runs, not the connections it holds.
//!
//! [`play_against_engine`] plays any player's session (a person's, another engine's) against
//! the built-in engine in a real DXP game over 127.0.0.1, as `damx play` and `damx demo` do.

use std::thread;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, unbounded};
use damx_engine::{Clock, Engine, EngineOptions, Limits, Progress, StopSignal};
use damx_rules::{Game, Move};

use crate::config::{SeriesPlan, SessionConfig};
use crate::driver::{Control, LoopbackSide, SessionError, SessionReport, play_loopback};
use crate::event::{Command, Event};
use crate::player::{ClockState, GameInfo, Player};

/// Plays `player`'s session (`session`: an Initiator's) against the built-in engine
/// (`engine`, a Follower that accepts every game and spaces its frames as `session` does)
/// over TCP on 127.0.0.1, each on its own thread, until both are over. `commands` and
/// `events` are the player's session's; [`Command::Abort`] aborts the engine's session too
/// (forwarded by a thread that ends with the last sender of `commands`). Returns both
/// reports, the player's first.
///
/// # Errors
/// If the sockets cannot be set up.
pub fn play_against_engine(
    session: &SessionConfig,
    player: Box<dyn Player>,
    engine: EnginePlayerOptions,
    commands: Receiver<Command>,
    events: Sender<Event>,
) -> Result<(SessionReport, SessionReport), SessionError> {
    let (engine_control, engine_commands) = Control::new();
    let (player_control, player_commands) = Control::new();
    thread::spawn(move || {
        for command in commands {
            if command == Command::Abort {
                engine_control.abort();
            }
            if !player_control.send(command) {
                break;
            }
        }
    });
    let engine = LoopbackSide {
        config: SessionConfig {
            frame_gap: session.frame_gap,
            ..SessionConfig::default()
        },
        player: Box::new(EnginePlayer::new(engine)),
        control: engine_commands,
        events: unbounded().0,
    };
    let player = LoopbackSide {
        config: session.clone(),
        player,
        control: player_commands,
        events,
    };
    play_loopback(player, engine, false)
}

/// What [`play_against_engine`] plays when the player is an engine too, in words: `2 DXP
/// games over TCP on 127.0.0.1, A against B, ` and the pace, `initiator`'s fixed limits or
/// else the plan's clock (`5 min each`).
pub fn engine_games_text(
    plan: &SeriesPlan,
    initiator: &EnginePlayerOptions,
    follower: &EnginePlayerOptions,
) -> String {
    let (games, s) = (plan.games, if plan.games == 1 { "" } else { "s" });
    let pace = match &initiator.fixed {
        Some(limits) => limits.to_string(),
        None => format!("{} min each", plan.minutes),
    };
    let (initiator, follower) = (&initiator.name, &follower.name);
    format!("{games} DXP game{s} over TCP on 127.0.0.1, {initiator} against {follower}, {pace}")
}

/// How an [`EnginePlayer`] plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnginePlayerOptions {
    /// The DXP name.
    pub name: String,
    /// The engine's threads, table size and weights.
    pub engine: EngineOptions,
    /// The limits of each search in a game without a clock.
    pub without_clock: Limits,
    /// Limits used for every move instead of the clock (a fixed depth, a fixed time).
    pub fixed: Option<Limits>,
    /// Kept back from our remaining time when the engine budgets it.
    pub margin: Duration,
}

impl Default for EnginePlayerOptions {
    /// `damx`, the engine's defaults, one second a move without a clock, a margin of 500 ms.
    fn default() -> EnginePlayerOptions {
        EnginePlayerOptions {
            name: "damx".to_owned(),
            engine: EngineOptions::default(),
            without_clock: Limits::move_time(Duration::from_secs(1)),
            fixed: None,
            margin: Duration::from_millis(500),
        }
    }
}

/// The damx engine behind the [`Player`] trait.
pub struct EnginePlayer {
    options: EnginePlayerOptions,
    /// The engine of the running game; made by [`Player::new_game`] (or the first move).
    engine: Option<Engine>,
    progress: Option<Sender<Progress>>,
}

impl EnginePlayer {
    /// An engine set up as `options` says.
    pub fn new(options: EnginePlayerOptions) -> EnginePlayer {
        EnginePlayer {
            engine: None,
            options,
            progress: None,
        }
    }

    /// The same player, sending each completed search iteration to `progress` (a closed
    /// channel is fine).
    pub fn with_progress(mut self, progress: Sender<Progress>) -> EnginePlayer {
        self.progress = Some(progress);
        self
    }

    /// The limits for the next move.
    pub fn limits(&self, clock: &ClockState) -> Limits {
        if let Some(fixed) = &self.options.fixed {
            return fixed.clone();
        }
        match clock.our_remaining {
            Some(remaining) => Limits::clock(Clock {
                remaining: remaining.saturating_sub(self.options.margin),
                moves_to_go: clock.our_moves_to_go,
            }),
            None => self.options.without_clock.clone(),
        }
    }
}

impl std::fmt::Debug for EnginePlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnginePlayer")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Player for EnginePlayer {
    fn name(&self) -> &str {
        &self.options.name
    }

    fn new_game(&mut self, _: &GameInfo) {
        // A fresh engine behaves as one whose table was cleared.
        self.engine = None;
        self.engine = Some(Engine::new(self.options.engine.clone()));
    }

    fn game_over(&mut self, _: &crate::GameRecord) {
        self.engine = None;
    }

    fn choose_move(&mut self, game: &Game, clock: &ClockState, stop: &StopSignal) -> Option<Move> {
        let limits = self.limits(clock);
        let progress = self.progress.clone();
        let mut observer = |report: &Progress| {
            if let Some(progress) = &progress {
                let _ = progress.send(report.clone());
            }
        };
        let options = &self.options.engine;
        let engine = self
            .engine
            .get_or_insert_with(|| Engine::new(options.clone()));
        let result = engine.search(game, &limits, stop, &mut observer);
        // The engine answers a legal move whenever there is one, even when stopped early.
        result
            .best_move
            .or_else(|| game.position().legal_moves().first().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    fn small() -> EnginePlayerOptions {
        EnginePlayerOptions {
            engine: EngineOptions {
                hash_mb: 4,
                ..EngineOptions::default()
            },
            ..EnginePlayerOptions::default()
        }
    }

    /// Two engines' games are said with their count, names and pace: the fixed limits, else
    /// the clock.
    #[test]
    fn engine_games_are_described() {
        let plan = |games| SeriesPlan {
            games,
            minutes: 5,
            move_limit: 0,
            colors: crate::config::SeriesColors::Fixed(damx_rules::Color::White),
        };
        let named = |name: &str, fixed| EnginePlayerOptions {
            name: name.to_owned(),
            fixed,
            ..EnginePlayerOptions::default()
        };
        let (a, b) = (named("a", Some(Limits::depth(3))), named("b", None));
        assert_eq!(
            engine_games_text(&plan(1), &a, &b),
            "1 DXP game over TCP on 127.0.0.1, a against b, depth 3"
        );
        assert_eq!(
            engine_games_text(&plan(2), &b, &a),
            "2 DXP games over TCP on 127.0.0.1, b against a, 5 min each"
        );
    }

    /// Against the built-in engine over 127.0.0.1 a whole game is played and both sides
    /// report it; an abort ends both sessions, the engine's too.
    #[test]
    fn a_player_plays_the_built_in_engine() {
        use crate::config::InitiatorConfig;
        let series = InitiatorConfig::series(1, damx_rules::Color::White, 0, 8, &[]);
        let mut session = SessionConfig::initiator(series);
        session.frame_gap = Duration::ZERO;
        let fixed = EnginePlayerOptions {
            fixed: Some(Limits::depth(1)),
            ..small()
        };
        let play = |session: &SessionConfig, abort: bool| {
            let (control, commands) = Control::new();
            if abort {
                control.abort();
            }
            let player = Box::new(EnginePlayer::new(fixed.clone()));
            let events = unbounded().0;
            play_against_engine(session, player, fixed.clone(), commands, events)
        };
        let (ours, theirs) = play(&session, false).unwrap();
        assert_eq!((ours.games.len(), theirs.games.len()), (1, 1));
        assert_eq!(ours.games[0].moves.len(), 16, "8 moves each");
        // Aborted before the connection is made (an error) or after: no game is finished.
        if let Ok((ours, theirs)) = play(&session, true) {
            let mut games = ours.games.iter().chain(&theirs.games);
            assert!(games.all(|game| game.result == damx_rules::GameResult::Unfinished));
        }
    }

    /// The engine and its table exist only while a game runs: made at its start (or its first
    /// move), dropped at its end.
    #[test]
    fn the_engine_lives_as_long_as_a_game() {
        let mut player = EnginePlayer::new(small());
        assert!(player.engine.is_none());
        let info = GameInfo {
            number: 1,
            role: crate::Role::Follower,
            our_name: "damx".into(),
            peer_name: "peer".into(),
            our_color: damx_rules::Color::White,
            minutes: 0,
            move_limit: None,
            start: damx_rules::Position::initial(),
        };
        player.new_game(&info);
        assert!(player.engine.is_some());
        let record = crate::GameRecord {
            number: 1,
            role: crate::Role::Follower,
            white: "damx".into(),
            black: "peer".into(),
            our_color: damx_rules::Color::White,
            minutes: 0,
            move_limit: None,
            start: damx_rules::Position::initial(),
            moves: Vec::new(),
            seconds: Vec::new(),
            result: damx_rules::GameResult::Unfinished,
            termination: crate::Termination::Aborted,
            site: None,
            date: None,
        };
        player.game_over(&record);
        assert!(player.engine.is_none());
        let stop = StopSignal::new();
        player.options.fixed = Some(Limits::depth(1));
        assert!(
            player
                .choose_move(&Game::default(), &ClockState::default(), &stop)
                .is_some()
        );
        assert!(player.engine.is_some());
    }

    /// The clock, the move limit and the fixed limits turn into the right engine limits.
    #[test]
    fn limits_follow_the_game() {
        let player = EnginePlayer::new(small());
        let clock = ClockState {
            our_remaining: Some(Duration::from_secs(60)),
            their_remaining: Some(Duration::from_secs(60)),
            our_moves_to_go: Some(30),
        };
        assert_eq!(
            player.limits(&clock),
            Limits::clock(Clock {
                remaining: Duration::from_millis(59_500),
                moves_to_go: Some(30),
            })
        );
        assert_eq!(
            player.limits(&ClockState::default()),
            Limits::move_time(Duration::from_secs(1))
        );
        let fixed = EnginePlayer::new(EnginePlayerOptions {
            fixed: Some(Limits::depth(3)),
            ..small()
        });
        assert_eq!(fixed.limits(&clock), Limits::depth(3));
    }

    /// At a fixed depth it plays a legal move and reports its progress.
    #[test]
    fn plays_a_legal_move() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut player = EnginePlayer::new(EnginePlayerOptions {
            fixed: Some(Limits::depth(3)),
            ..small()
        })
        .with_progress(tx);
        let game = Game::default();
        let mv = player
            .choose_move(&game, &ClockState::default(), &StopSignal::new())
            .unwrap();
        assert!(game.position().is_legal(&mv));
        assert_eq!(rx.try_iter().last().map(|p| p.depth), Some(3));
    }

    /// Without limits it searches until stopped, then returns a legal move at once.
    #[test]
    fn returns_when_stopped() {
        let stop = StopSignal::new();
        let raise = stop.clone();
        let (done, answer) = crossbeam_channel::unbounded();
        thread::spawn(move || {
            let mut player = EnginePlayer::new(EnginePlayerOptions {
                fixed: Some(Limits::default()),
                ..small()
            });
            let game = Game::default();
            let mv = player.choose_move(&game, &ClockState::default(), &stop);
            let _ = done.send(mv.filter(|mv| game.position().is_legal(mv)));
        });
        thread::sleep(Duration::from_millis(50));
        raise.stop();
        let mv = answer
            .recv_timeout(Duration::from_secs(20))
            .expect("the search stops when told");
        assert!(mv.is_some());
    }
}
