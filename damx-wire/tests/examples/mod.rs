//! Messages as bytes and as JSON, shared by the JSON tests here and the tests of `damx decode`
//! and `damx encode` in damx-cli.

/// Each kind as bytes and as its documented JSON line (the crate docs show the same lines),
/// dxp.md §5's vectors among them.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
    (
        "R01Tornado voor Windows 4.0        W060065A",
        r#"{"type":"gamereq","version":1,"initiator":"Tornado voor Windows 4.0","follower_color":"white","minutes":60,"move_limit":65}"#,
    ),
    (
        "R01DXP Client                      Z000000BWzzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
        r#"{"type":"gamereq","version":1,"initiator":"DXP Client","follower_color":"black","minutes":0,"move_limit":0,"to_move":"white","position":"zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww"}"#,
    ),
    (
        "ATornado voor Windows 4.0        0",
        r#"{"type":"gameacc","follower":"Tornado voor Windows 4.0","code":"accepted"}"#,
    ),
    (
        "M001205250422122320",
        r#"{"type":"move","seconds":12,"from":5,"to":25,"captured":[22,12,23,20]}"#,
    ),
    (
        "M0012061100",
        r#"{"type":"move","seconds":12,"from":6,"to":11,"captured":[]}"#,
    ),
    (
        "E00",
        r#"{"type":"gameend","reason":"no_reason","stop":"continue"}"#,
    ),
    (
        "M0000380703122333",
        r#"{"type":"move","seconds":0,"from":38,"to":7,"captured":[12,23,33]}"#,
    ),
    (
        "R01Tornado voor Windows 4.0        W060065BWzzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
        r#"{"type":"gamereq","version":1,"initiator":"Tornado voor Windows 4.0","follower_color":"white","minutes":60,"move_limit":65,"to_move":"white","position":"zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww"}"#,
    ),
    ("E31", r#"{"type":"gameend","reason":"win","stop":"stop"}"#),
    (
        "CWhat do you think about move 35?",
        r#"{"type":"chat","text":"What do you think about move 35?"}"#,
    ),
    (
        "B005Z",
        r#"{"type":"backreq","move_number":5,"to_move":"black"}"#,
    ),
    ("K1", r#"{"type":"backacc","code":"not_supported"}"#),
    (
        "A                                3",
        r#"{"type":"gameacc","follower":"","code":"no_games"}"#,
    ),
];
