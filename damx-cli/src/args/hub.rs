//! The options of `damx hub` (the first values of the Hub parameters, which a client may
//! change with `set-param`), and the `--engine builtin|hub:COMMAND` choice of `follow` and
//! `initiate`.

use clap::Args;
use damx_session::hub::{HubOptions, HubPlayerOptions, MAX_SKILL};
use damx_session::tournament::spec::{program_name, split_words};

use super::EngineArgs;
use crate::cmd;

/// `damx hub`.
#[derive(Debug, Args)]
pub(crate) struct HubArgs {
    #[command(flatten)]
    engine: EngineArgs,

    /// Playing strength from 1 (a beginner can win) to 20 (full strength) (Hub parameter skill)
    #[arg(long, value_name = "N", default_value_t = MAX_SKILL, value_parser = clap::value_parser!(u32).range(1..=MAX_SKILL as i64))]
    skill: u32,
}

impl HubArgs {
    /// The validated configuration.
    pub(crate) fn into_config(self) -> cmd::hub::Config {
        cmd::hub::Config {
            options: HubOptions {
                // The databases are opened at the first search, so that `init` is answered at once.
                engine: self.engine.options_without_egdb(),
                egdb: self.engine.egdb_dir(),
                // `--eval` and `--weights` are in the engine options; the Hub parameter `weights`
                // replaces them when a client sets it.
                weights: None,
                skill: self.skill,
            },
        }
    }
}

/// Who plays for `follow` and `initiate` (`--engine`): the built-in engine, or a Hub engine
/// program bridged to DXP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LocalPlayer {
    /// `builtin`: the damx engine in process.
    Builtin,
    /// `hub:COMMAND[,option.NAME=VALUE...]`: a Hub engine program and the parameters to set.
    Hub(Vec<String>, Vec<(String, String)>),
}

/// `builtin` or `hub:COMMAND`, optionally followed by `,option.NAME=VALUE` items (sent as
/// `set-param` before `init`); the command is split at blanks, quotes group words.
pub(crate) fn parse_local_player(text: &str) -> Result<LocalPlayer, String> {
    let text = text.trim();
    if text == "builtin" {
        return Ok(LocalPlayer::Builtin);
    }
    let spec = text
        .strip_prefix("hub:")
        .or_else(|| text.strip_prefix("hub="))
        .ok_or_else(|| format!("expected builtin or hub:COMMAND, found {text:?}"))?;
    let mut items = spec.split(",option.");
    let words = split_words(items.next().unwrap_or("")).map_err(|e| e.to_string())?;
    if words.is_empty() {
        return Err("hub: the command is empty".into());
    }
    let params = items
        .map(|item| match item.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_owned(), value.trim().to_owned()))
            }
            _ => Err(format!("expected option.NAME=VALUE, found option.{item}")),
        })
        .collect::<Result<_, _>>()?;
    Ok(LocalPlayer::Hub(words, params))
}

impl LocalPlayer {
    /// The Hub player's options, if it is one: the DXP `name` when given (else the program's
    /// file name) and the fixed limits, if any.
    pub(crate) fn hub_options(
        &self,
        name: Option<&str>,
        fixed: Option<damx_engine::Limits>,
    ) -> Option<HubPlayerOptions> {
        let LocalPlayer::Hub(command, params) = self else {
            return None;
        };
        let name = name.map_or_else(|| program_name(command), str::to_owned);
        Some(HubPlayerOptions {
            name: name.chars().take(32).collect(),
            command: command.clone(),
            params: params.clone(),
            fixed,
            ..HubPlayerOptions::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `builtin`, `hub:COMMAND` and `hub=COMMAND` with options; anything else is refused.
    #[test]
    fn local_players() {
        assert_eq!(parse_local_player("builtin"), Ok(LocalPlayer::Builtin));
        assert_eq!(
            parse_local_player("hub:./scan hub"),
            Ok(LocalPlayer::Hub(
                vec!["./scan".into(), "hub".into()],
                vec![]
            ))
        );
        assert_eq!(
            parse_local_player("hub='/opt/my engine/damx' hub,option.skill=5,option.egdb=/db"),
            Ok(LocalPlayer::Hub(
                vec!["/opt/my engine/damx".into(), "hub".into()],
                vec![("skill".into(), "5".into()), ("egdb".into(), "/db".into())]
            ))
        );
        assert!(parse_local_player("hub:scan,option.book").is_err());
        assert!(parse_local_player("hub:").is_err());
        assert!(parse_local_player("scan").is_err());
        let options = parse_local_player("hub:./bin/scan.exe hub")
            .unwrap()
            .hub_options(None, None)
            .unwrap();
        assert_eq!(options.name, "scan");
        assert_eq!(LocalPlayer::Builtin.hub_options(None, None), None);
    }
}
