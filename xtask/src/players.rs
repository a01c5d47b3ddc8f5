//! Player specifications for the engine tasks (`strength`, `tune`, `ballots`): text such as
//! `depth=6,threads=2,lmr=off` or `random`, turned into engine options and limits.

use std::time::Duration;

use anyhow::{Context, bail};
use damx_engine::egdb::{self, Egdb, SharedEgdb};
use damx_engine::gauntlet::{Contender, MaterialPlayer, RandomPlayer, SearchPlayer};
use damx_engine::pattern::PatternWeights;
use damx_engine::{EngineOptions, EvalParams, Limits};

/// The text of [`SPEC_HELP`], as a macro so that task help texts can `concat!` it.
macro_rules! spec_help {
    () => {
        "\
a player is `random`, `material` (one-ply material) or comma-separated engine settings:
depth=N, time=MS (per move), game=MS (per game, on a clock), nodes=N, threads=N, hash=MIB, weights=FILE|hand|tuned|pattern (FILE.dxw: pattern weights),
hand=FILE (the hand features' weights under them, as `train fit --model regions+hand` writes),
contempt=N (centi-men a draw scores below zero for this player, -100..=100),
lmr=on|off, aspiration=on|off, extension=on|off, threat=on|off,
pruning=on|off, lmp=on|off, timeman=on|off (adaptive time on a game clock), pace=PERCENT (its soft bound), probcut=on|off, singular=on|off, steplmr=on|off, pcscaled=on|off,
threats=on|off (no late-move reduction for a quiet move that threatens a capture),
iir=on|off (a deep node with no table move searched a ply shallower),
dbtime=on|off (a clock plan that counts the endings in the databases as free),
dbprogress=on|off (within the databases, search on through wins of slices without distances),
endgame=on|off (knowledge for converting won endings),
egdb=DIR|default (endgame databases; `default` is the directory of `damx egdb`)"
    };
}
pub(crate) use spec_help;

/// What a player specification may say (printed with an error in one).
pub(crate) const SPEC_HELP: &str = spec_help!();

/// The endgame databases in `value` (a directory, or `default`), refused when none load.
pub(crate) fn databases(value: &str) -> anyhow::Result<SharedEgdb> {
    let dir = match value {
        "default" => egdb::default_dir().context("no default endgame database directory")?,
        dir => std::path::PathBuf::from(dir),
    };
    let egdb = Egdb::open(&dir).with_context(|| format!("egdb={value}"))?;
    for problem in egdb.problems() {
        eprintln!("endgame databases: skipped {problem}");
    }
    if egdb.stats().slices == 0 {
        bail!("egdb={value}: no slice files in {}", dir.display());
    }
    Ok(SharedEgdb::new(egdb))
}

/// What kind of player a specification names.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Random,
    Material,
    Engine(Box<EngineOptions>, Limits),
}

/// A parsed player specification.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    pub(crate) text: String,
    pub(crate) kind: Kind,
    /// The player's time for a whole game, when it plays on a clock.
    pub(crate) game_time: Option<Duration>,
}

impl Spec {
    pub(crate) fn parse(text: &str) -> anyhow::Result<Spec> {
        let mut game_time = None;
        let mut hand = None;
        let kind = match text {
            "random" => Kind::Random,
            "material" => Kind::Material,
            _ => {
                let mut options = EngineOptions {
                    hash_mb: 16,
                    ..EngineOptions::default()
                };
                let mut limits = Limits::default();
                for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let (key, value) = item
                        .split_once('=')
                        .with_context(|| format!("`{item}` is not key=value"))?;
                    let number = || -> anyhow::Result<u64> {
                        value
                            .parse()
                            .with_context(|| format!("`{key}` wants a number, got `{value}`"))
                    };
                    let switch = || -> anyhow::Result<bool> {
                        match value {
                            "on" => Ok(true),
                            "off" => Ok(false),
                            _ => bail!("`{key}` is on or off, got `{value}`"),
                        }
                    };
                    match key {
                        "depth" => limits.depth = Some(number()? as u32),
                        "time" => limits.move_time = Some(Duration::from_millis(number()?)),
                        "game" => game_time = Some(Duration::from_millis(number()?)),
                        "nodes" => limits.nodes = Some(number()?),
                        "threads" => options.threads = number()? as usize,
                        "hash" => options.hash_mb = number()? as usize,
                        "weights" => options.eval = weights(value)?,
                        "hand" => hand = Some(weights(value)?),
                        "lmr" => options.search.late_move_reductions = switch()?,
                        "aspiration" => options.search.aspiration = switch()?,
                        "extension" => options.search.single_reply_extension = switch()?,
                        "threat" => options.search.threat_extension = switch()?,
                        "pruning" => options.search.static_pruning = switch()?,
                        "lmp" => options.search.late_move_pruning = switch()?,
                        "timeman" => options.search.adaptive_time = switch()?,
                        "probcut" => options.search.probcut = switch()?,
                        "threats" => options.search.unreduced_threats = switch()?,
                        "iir" => options.search.internal_reduction = switch()?,
                        "dbtime" => options.search.database_time = switch()?,
                        "dbprogress" => options.search.database_progress = switch()?,
                        "singular" => options.search.singular_extension = switch()?,
                        "steplmr" => options.search.stepped_reductions = switch()?,
                        "pcscaled" => options.search.scaled_probcut = switch()?,
                        "pace" => options.pace = u32::try_from(number()?).unwrap_or(u32::MAX),
                        "contempt" => {
                            options.contempt = value.parse().with_context(|| {
                                format!("`contempt` wants a whole number, got `{value}`")
                            })?
                        }
                        "endgame" => options.search.endgame_knowledge = switch()?,
                        "egdb" => options.egdb = Some(databases(value)?),
                        _ => bail!("unknown setting `{key}`\n{SPEC_HELP}"),
                    }
                }
                // The hand features' weights under the evaluation, whatever `weights` chose.
                if let Some(hand) = hand {
                    options.eval.opening = hand.opening;
                    options.eval.ending = hand.ending;
                }
                if limits == Limits::default() && game_time.is_none() {
                    bail!("`{text}` sets no depth, time, game time or nodes\n{SPEC_HELP}");
                }
                Kind::Engine(Box::new(options), limits)
            }
        };
        Ok(Spec {
            text: text.to_string(),
            kind,
            game_time,
        })
    }

    /// Threads the player uses while thinking.
    pub(crate) fn threads(&self) -> usize {
        match &self.kind {
            Kind::Engine(options, _) => options.threads.max(1),
            _ => 1,
        }
    }

    /// A fresh player; `seed` varies the random players.
    pub(crate) fn build(&self, seed: u64) -> Box<dyn Contender + Send> {
        match &self.kind {
            Kind::Random => Box::new(RandomPlayer::new(seed)),
            Kind::Material => Box::new(MaterialPlayer::new(seed)),
            Kind::Engine(options, limits) => {
                Box::new(SearchPlayer::new((**options).clone(), limits.clone()))
            }
        }
    }
}

pub(crate) fn weights(value: &str) -> anyhow::Result<EvalParams> {
    match value {
        "hand" => Ok(EvalParams::hand_set()),
        "tuned" => Ok(EvalParams::tuned()),
        "pattern" => Ok(EvalParams::pattern()),
        path if path.ends_with(".dxw") => {
            let weights = PatternWeights::load(std::path::Path::new(path))
                .with_context(|| format!("in {path}"))?;
            Ok(EvalParams::with_patterns(std::sync::Arc::new(weights)))
        }
        path => {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
            EvalParams::from_text(&text).with_context(|| format!("in {path}"))
        }
    }
}

/// The 1-, 5- and 15-minute load averages, to note next to measurements on a shared machine.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `egdb=DIR` loads the databases of a directory and refuses one without any.
    #[test]
    fn egdb_setting() {
        let dir = std::env::temp_dir().join(format!("damx-xtask-egdb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = |dir: &std::path::Path| format!("depth=2,egdb={}", dir.display());
        let error = Spec::parse(&text(&dir)).unwrap_err().to_string();
        assert!(error.contains("no slice files"), "{error}");
        let missing = Spec::parse("depth=2,egdb=/nonexistent/damx-egdb").unwrap_err();
        assert!(
            format!("{missing:#}").contains("/nonexistent/damx-egdb"),
            "{missing:#}"
        );

        let options = egdb::BuildOptions {
            dir: dir.clone(),
            pieces: 2,
            memory_limit: None,
        };
        egdb::build(&options, &|_| {}).unwrap();
        let spec = Spec::parse(&text(&dir)).unwrap();
        let Kind::Engine(options, _) = spec.kind else {
            panic!("an engine");
        };
        let egdb = options.egdb.expect("the databases");
        assert_eq!(egdb.stats().slices, 4);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `hand=FILE` puts a file's hand weights under the pattern tables, before or after
    /// `weights=`, and leaves the tables as they are.
    #[test]
    fn hand_setting() {
        let path = std::env::temp_dir().join(format!("damx-xtask-hand-{}", std::process::id()));
        let mut hand = EvalParams::tuned();
        hand.opening[1] += 17;
        hand.ending[1] -= 9;
        std::fs::write(&path, hand.to_text()).unwrap();
        for text in [
            format!("depth=2,hand={}", path.display()),
            format!("depth=2,hand={},weights=pattern", path.display()),
        ] {
            let Kind::Engine(options, _) = Spec::parse(&text).unwrap().kind else {
                panic!("an engine");
            };
            assert_eq!(options.eval.opening, hand.opening, "{text}");
            assert_eq!(options.eval.ending, hand.ending, "{text}");
            assert_eq!(
                options.eval.patterns,
                EvalParams::pattern().patterns,
                "{text}"
            );
        }
        assert!(Spec::parse("depth=2,hand=/nonexistent/hand.txt").is_err());
        let _ = std::fs::remove_file(&path);
    }
}
