//! `damx initiate` (its options and colour plan: `damx initiate --help`): the built-in engine,
//! or a Hub engine program, as a DXP Initiator playing the games of a
//! [`damx_session::SeriesPlan`] from the openings chosen, with Ctrl-C routed to the session
//! (see [`crate::session`]).

use std::io::Write;

use crate::args::InitiateArgs;
use crate::error::Error;
use crate::log::info;
use crate::session::verdict;

/// Plays the games.
pub(crate) fn run(args: &InitiateArgs, out: &mut dyn Write) -> Result<(), Error> {
    let (config, plan) = (args.side(), args.plan());
    config.session.records.check()?;
    let openings = match &args.openings() {
        Some(source) => source.positions(None)?,
        None => Vec::new(),
    };
    let mut session = config.session.clone();
    session.role = plan.role(&openings);
    info!("asking for {} game(s)", plan.games);
    super::hub::check(config.hub.as_ref())?;
    let report = config.play(&session, out)?;
    verdict([&report])?;
    match report.unfinished_series(plan.games as usize) {
        Some(why) => Err(Error::Peer(why)),
        None => Ok(()),
    }
}
