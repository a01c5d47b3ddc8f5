//! `damx encode`: JSON lines to DXP messages.
//!
//! Each item is one JSON object in damx-wire's serde shape (what `damx decode` writes). Valid
//! ones become their exact wire bytes: one message a line, or with `--frames` each followed by
//! its NUL, ready to be sent over TCP. Each invalid item is named on standard error, and the
//! command goes on with the next one.

use std::io::Write;

use damx_wire::{Escaped, Message};

use crate::error::Error;
use crate::input::Source;
use crate::log::problem;

use super::Tally;

/// Encodes every item of `source`, writing the wire bytes of each valid one (each followed by
/// a NUL with `frames`, else by a line break).
pub(crate) fn run(frames: bool, source: &Source, out: &mut dyn Write) -> Result<(), Error> {
    let mut tally = Tally::default();
    source.for_each_item(|origin, item| {
        let bytes = match item {
            Ok(bytes) => bytes,
            Err(length) => {
                tally.invalid(|| problem!("{origin}: {length} bytes, too long for a message"));
                return Ok(());
            }
        };
        match encode_one(bytes, frames) {
            Ok(wire) => {
                tally.valid();
                out.write_all(&wire).map_err(Error::stdout)
            }
            Err(why) => {
                tally.invalid(|| problem!("{origin}: {:#}: {why}", Escaped(bytes)));
                Ok(())
            }
        }
    })?;
    tally.finish("encoded")
}

/// The wire bytes of one JSON object, with the line break or NUL that ends them.
fn encode_one(json: &[u8], frames: bool) -> Result<Vec<u8>, String> {
    let message = Message::from_json(json).map_err(|error| error.to_string())?;
    if frames {
        return Ok(message.to_frame());
    }
    let line_break = "the chat text holds a line break, which a line of output cannot carry \
                      (use --frames)";
    message.to_line().ok_or_else(|| line_break.to_owned())
}
