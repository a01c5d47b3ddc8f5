//! The JSON shape of messages (feature `serde`): stable, readable, and checked on the way in
//! as strictly as the wire is.
#![cfg(feature = "serde")]

use damx_wire::{Message, decode};

mod examples;
use examples::EXAMPLES;

/// Decoded bytes serialise to the documented JSON, and that JSON encodes to the same bytes.
#[test]
fn every_kind_has_its_documented_json_shape() {
    for (bytes, json) in EXAMPLES {
        let message = decode(bytes.as_bytes()).unwrap();
        assert_eq!(serde_json::to_string(&message).unwrap(), *json, "{bytes}");
        let back: Message = serde_json::from_str(json).unwrap();
        assert_eq!(back, message, "{json}");
        assert_eq!(back.to_bytes(), bytes.as_bytes(), "{json}");
    }
}

/// What a peer may send but a sender should not (a name with a leading blank, control
/// characters in a chat) survives the trip through JSON byte for byte.
#[test]
fn json_keeps_everything_the_wire_accepted() {
    for bytes in [
        &b"A Scan  \t 3.1                    0"[..],
        b"C  two blanks, a tab\t, a bell\x07 and trailing blanks  ",
        b"M000028280422122321",
    ] {
        let message = decode(bytes).unwrap();
        let json = serde_json::to_string(&message).unwrap();
        let back: Message = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_bytes(), bytes, "{json}");
    }
}

/// JSON that does not describe a valid message is an error, never an invalid message.
#[test]
fn invalid_json_values_are_errors() {
    let cases = [
        (
            r#"{"type":"move","seconds":12,"from":51,"to":11,"captured":[]}"#,
            "square 51 out of range 1..=50",
        ),
        (
            r#"{"type":"move","seconds":10000,"from":6,"to":11,"captured":[]}"#,
            "seconds 10000 out of range 0..=9999",
        ),
        (
            r#"{"type":"move","seconds":12,"from":5,"to":25,"captured":[22,22]}"#,
            "square 22 captured twice",
        ),
        (
            r#"{"type":"move","seconds":12,"from":5,"to":25,"captured":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21]}"#,
            "21 captured squares, at most 20 allowed",
        ),
        (
            r#"{"type":"move","seconds":12,"from":6,"to":11}"#,
            "missing field `captured`",
        ),
        (
            r#"{"type":"move","seconds":12,"from":6,"to":11,"captured":[],"promotes":true}"#,
            "unknown field `promotes`",
        ),
        (r#"{"type":"chat","text":""}"#, "empty chat text"),
        (
            r#"{"type":"chat","text":"caf\u00e9"}"#,
            "chat byte 3: 0xc3 outside 1..=127",
        ),
        (
            r#"{"type":"gameacc","follower":"A name that is much longer than 32","code":"accepted"}"#,
            "name of 34 bytes, at most 32 allowed",
        ),
        (
            r#"{"type":"gameacc","follower":"Scan","code":"maybe"}"#,
            "unknown variant `maybe`",
        ),
        (
            r#"{"type":"backreq","move_number":0,"to_move":"black"}"#,
            "move number 0 out of range 1..=999",
        ),
        (
            r#"{"type":"backreq","move_number":5,"to_move":"B"}"#,
            "unknown variant `B`",
        ),
        (
            r#"{"type":"gamereq","version":1,"initiator":"x","follower_color":"white","minutes":60,"move_limit":65,"to_move":"white"}"#,
            "both `to_move` and `position`",
        ),
        (
            r#"{"type":"gamereq","version":1,"initiator":"x","follower_color":"white","minutes":1000,"move_limit":65}"#,
            "thinking time 1000 out of range 0..=999",
        ),
        (
            r#"{"type":"gamereq","version":100,"initiator":"x","follower_color":"white","minutes":1,"move_limit":65}"#,
            "protocol version 100 out of range 0..=99",
        ),
        (
            r#"{"type":"gamereq","version":1,"initiator":"x","follower_color":"white","minutes":1,"move_limit":65,"to_move":"white","position":"eee"}"#,
            "position of 3 letters, expected 50",
        ),
        (
            r#"{"type":"takeback","code":"accepted"}"#,
            "unknown variant `takeback`",
        ),
        (r#"{"code":"accepted"}"#, "missing field `type`"),
    ];
    for (json, expected) in cases {
        let error = serde_json::from_str::<Message>(json)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(expected),
            "{json}\n  gave: {error}\n  want: {expected}"
        );
    }
}

/// [`Message::from_json`] keeps serde's message and points at the column where it has one.
#[test]
fn json_errors_name_the_column() {
    let error = |json: &[u8]| Message::from_json(json).unwrap_err().to_string();
    let unknown = error(br#"{"type":"mov"}"#);
    assert!(unknown.starts_with("unknown variant `mov`"), "{unknown}");
    assert!(unknown.ends_with("(column 13)"), "{unknown}");
    let second = error(b"{\"type\":\n\"move\",}");
    assert!(
        second.ends_with("(line 2 column 8 of the item)"),
        "{second}"
    );
    // A field checked after the object was read has no position.
    let missing = error(br#"{"type":"move","seconds":12}"#);
    assert_eq!(missing, "missing field `from`");
    let json = br#"{"type":"move","seconds":12,"from":6,"to":11,"captured":[]}"#;
    let message = Message::from_json(json).unwrap();
    assert_eq!(message.to_line(), Some(b"M0012061100\n".to_vec()));
    assert_eq!(message.to_frame(), b"M0012061100\0");
}
