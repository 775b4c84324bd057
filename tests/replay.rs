//! Replay tokens: exact replays, and clear errors for bad or foreign tokens.
#![cfg(feature = "sim")]

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Error, Outcome, Schedule, TokenError};

/// Two threads bump a counter under a lock; passes in every schedule.
fn locked_counter() {
    let n = Arc::new(Mutex::new(0));
    let n2 = n.clone();
    let t = thread::spawn(move || *n2.lock().unwrap() += 1);
    *n.lock().unwrap() += 1;
    t.join().unwrap();
    assert_eq!(*n.lock().unwrap(), 2);
}

fn token(choices: &[u32], fingerprint: u32) -> String {
    Schedule {
        strategy: "dfs".into(),
        seed: None,
        choices: choices.to_vec(),
        fingerprint,
        fair: true,
        memory_model: samaritan::MemoryModel::Sc,
    }
    .to_token()
}

/// Replays `token` on `locked_counter` and returns the outcome.
#[track_caller]
fn replay_outcome(token: &str) -> Outcome {
    Builder::new().replay(token, locked_counter).expect("a readable token").outcome
}

#[test]
fn a_replay_reports_its_own_trace_and_token() {
    // The one point with two threads enabled is the first lock: main (0)
    // and t1 both want it. Choose main; every other step is forced. A
    // fingerprint of 0 matches any program.
    let first = Builder::new().replay(&token(&[0], 0), locked_counter).unwrap();
    assert_eq!(first.outcome, Outcome::Pass, "{first}");
    assert_eq!(first.to_string(), "pass: the replayed schedule ran to its end without a bug (found by strategy dfs)");
    let failure = first.failure.as_ref().unwrap();
    assert_eq!(failure.trace.lines.len(), 8);
    assert_ne!(failure.schedule.fingerprint, 0);
    // The replay's own token carries the real fingerprint and reproduces
    // itself.
    let second = Builder::new().replay(&failure.token, locked_counter).unwrap();
    assert_eq!(second.outcome, Outcome::Pass, "{second}");
    assert_eq!(second.token(), Some(failure.token.as_str()));
    assert_eq!(second.failure.unwrap().trace, failure.trace);
    // Another fingerprint means another program.
    let Outcome::ScheduleMismatch { step, detail } = replay_outcome(&token(&[0], 12345)) else {
        panic!("a wrong fingerprint must not fit")
    };
    assert_eq!(step, 8);
    assert_eq!(
        detail,
        "the schedule replays, but the operations differ from those it was recorded with: the program changed since the token was made"
    );
}

#[test]
fn a_token_choosing_a_thread_that_is_not_enabled_names_the_step() {
    assert_eq!(
        replay_outcome(&token(&[5], 0)),
        Outcome::ScheduleMismatch { step: 1, detail: "thread '#5' is not enabled (enabled: main, t1)".into() }
    );
}

#[test]
fn a_token_that_ends_early_or_late_does_not_fit() {
    assert_eq!(
        replay_outcome(&token(&[], 0)),
        Outcome::ScheduleMismatch {
            step: 1,
            detail:
                "the schedule ended after 0 choices but the execution needs another thread choice (from 2 alternatives)"
                    .into()
        }
    );
    let Outcome::ScheduleMismatch { detail, .. } = replay_outcome(&token(&[0, 0, 0, 0, 0, 0, 0, 0, 0], 0)) else {
        panic!("a too-long schedule must not fit")
    };
    assert_eq!(detail, "the execution ended after 1 of the schedule's 9 choices");
}

#[test]
fn a_token_from_another_version_of_the_program_is_rejected() {
    // Record a passing schedule of the program, then change the program.
    let recorded = Builder::new().replay(&token(&[1], 0), locked_counter).unwrap().failure.unwrap().token;
    let changed = Builder::new()
        .replay(&recorded, || {
            let n = Arc::new(Mutex::new(0));
            let flag = Arc::new(AtomicUsize::new(0));
            let (n2, flag2) = (n.clone(), flag.clone());
            let t = thread::spawn(move || {
                flag2.store(1, Ordering::SeqCst);
                *n2.lock().unwrap() += 1
            });
            *n.lock().unwrap() += 1;
            t.join().unwrap();
        })
        .unwrap();
    assert!(matches!(changed.outcome, Outcome::ScheduleMismatch { .. }), "{changed}");
}

#[test]
fn a_schedule_that_repeats_a_pattern_has_a_short_token() {
    // A livelock's schedule: a prefix, then one pattern over and over.
    let mut choices = vec![0, 2, 1];
    for _ in 0..5000 {
        choices.extend([1, 2, 2, 1, 0]);
    }
    let schedule = Schedule {
        strategy: "dfs".into(),
        seed: None,
        choices,
        fingerprint: 7,
        fair: true,
        memory_model: samaritan::MemoryModel::Sc,
    };
    let token = schedule.to_token();
    // Run-length encoding alone would need two numbers per choice here.
    assert!(token.len() < 48, "{token}");
    assert_eq!(Schedule::from_token(&token).unwrap(), schedule);
}

#[test]
fn a_token_has_one_spelling() {
    // The last character of a token carries spare bits; a token that sets
    // them is another text for the same bytes, and is refused.
    let schedule = Schedule {
        strategy: "dfs".into(),
        seed: None,
        choices: vec![0, 1],
        fingerprint: 3,
        fair: true,
        memory_model: samaritan::MemoryModel::Sc,
    };
    let token = schedule.to_token();
    let last = token.chars().last().unwrap();
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let next = alphabet.chars().nth(alphabet.find(last).unwrap() + 1).unwrap();
    let other = format!("{}{next}", &token[..token.len() - 1]);
    assert_eq!(Schedule::from_token(&other), Err(TokenError::InvalidCharacter(token.len() - 1)), "{token} {other}");
    assert_eq!(Schedule::from_token(&token), Ok(schedule));
}

#[test]
fn malformed_tokens_get_clear_errors() {
    let cases: [(&str, TokenError, &str); 5] = [
        ("hello", TokenError::MissingPrefix, "not a samaritan replay token: it should start with `s2_`"),
        (
            "s3_AAAA",
            TokenError::UnsupportedVersion("3".into()),
            "replay token format version 3 is not supported: this samaritan reads version 2",
        ),
        ("s2_ab*d", TokenError::InvalidCharacter(5), "replay token has an invalid character at position 5"),
        ("s2_", TokenError::Truncated, "replay token is truncated"),
        (
            "s2_AAAAAAAAAAAAAAAA",
            TokenError::Checksum,
            "replay token checksum does not match: it was altered or cut short",
        ),
    ];
    for (text, expected, message) in cases {
        let err = Builder::new().replay(text, locked_counter).unwrap_err();
        assert_eq!(err, Error::Token(expected), "{text}");
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn tokens_round_trip_and_no_mutation_makes_the_parser_panic() {
    let mut state = 0x1234_5678_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..200 {
        let len = (next() % 40) as usize;
        let choices: Vec<u32> = (0..len).map(|_| (next() % 4) as u32).collect();
        let seed = (next() % 2 == 0).then(&mut next);
        let schedule = Schedule {
            strategy: "random".into(),
            seed,
            choices,
            fingerprint: next() as u32,
            fair: next() % 2 == 0,
            memory_model: [
                samaritan::MemoryModel::Weak,
                samaritan::MemoryModel::Sc,
                samaritan::MemoryModel::WeakCasNewest,
            ][(next() % 3) as usize],
        };
        let text = schedule.to_token();
        assert_eq!(Schedule::from_token(&text), Ok(schedule.clone()));
        // Every single-character change and every cut is either rejected
        // or (rarely) still a valid token; it never panics.
        let bytes = text.as_bytes();
        for i in 0..bytes.len() {
            let mut altered = bytes.to_vec();
            altered[i] = b"Az9-_*"[(next() % 6) as usize];
            let _ = Schedule::from_token(&String::from_utf8(altered).unwrap());
            let _ = Schedule::from_token(&text[..i]);
        }
    }
}

/// A version 2 token of strategy `dfs` made of `runs` (head, length), as a
/// crafted token would be: see the format in `samaritan_sim::schedule`.
fn crafted(runs: &[(u64, u64)]) -> String {
    fn varint(out: &mut Vec<u8>, mut n: u64) {
        while n >= 0x80 {
            out.push(n as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    let mut bytes = vec![3, b'd', b'f', b's', 0, 1, 0, 0, 0, 0];
    varint(&mut bytes, runs.len() as u64);
    for &(head, len) in runs {
        varint(&mut bytes, head);
        varint(&mut bytes, len);
    }
    let mut h: u32 = 0x811c_9dc5;
    for &b in &bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    bytes.extend_from_slice(&((h ^ (h >> 16)) as u16).to_le_bytes());
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut token = String::from("s2_");
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            token.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    token
}

#[test]
fn a_token_cannot_make_a_replay_allocate_what_it_likes() {
    // r08: a short token whose four runs of 2^24 zeros decode to 2^26
    // choices (256 MiB) is refused before anything is allocated.
    let huge = crafted(&[(0, 1 << 24); 4]);
    assert!(huge.len() < 50, "{huge}");
    assert_eq!(Schedule::from_token(&huge), Err(TokenError::TooLong { choices: 1 << 26, max: 1 << 24 }));
    assert_eq!(
        TokenError::TooLong { choices: 1 << 26, max: 1 << 24 }.to_string(),
        "replay token holds 67108864 choices, more than an execution of at most 16777216 steps can make"
    );
    // A replay reads no more choices than its step bound allows.
    let eleven = crafted(&[(0, 11)]);
    assert_eq!(Schedule::from_token(&eleven).unwrap().choices, [0; 11]);
    let err = Builder::new().max_steps(10).replay(&eleven, locked_counter).unwrap_err();
    assert_eq!(err, Error::Token(TokenError::TooLong { choices: 11, max: 10 }));
    // A value too large to be a choice is no truncation.
    assert_eq!(Schedule::from_token(&crafted(&[(1 << 33, 1)])), Err(TokenError::Overflow));
    assert_eq!(TokenError::Overflow.to_string(), "replay token holds a number too large for what it encodes");
}

/// The lost update: two threads each load and store.
fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    let t = thread::spawn(move || {
        let v = n2.load(Ordering::SeqCst);
        n2.store(v + 1, Ordering::SeqCst);
    });
    let v = n.load(Ordering::SeqCst);
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
}

/// `lost_update` as it reads after an edit that only moved its code: the
/// same steps, at other lines and columns.
fn lost_update_moved() {
    let n = Arc::new(AtomicUsize::new(0));

    let n2 = n.clone();
    let t = thread::spawn(move || {
        let v = n2.load(Ordering::SeqCst);
        n2.store(v + 1, Ordering::SeqCst);
    });

    let v = n.load(Ordering::SeqCst);
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
}

#[test]
fn a_token_survives_code_that_only_moved() {
    let found = Builder::new().explore(lost_update).unwrap();
    let token = found.token().expect("the bug is found").to_string();
    let moved = Builder::new().replay(&token, lost_update_moved).unwrap();
    assert!(moved.is_failure(), "{moved}");
    assert!(
        moved.to_string().starts_with("samaritan replayed a failing schedule (found by strategy portfolio/"),
        "{moved}"
    );
    // Nothing positional is in a token: the replay's is the same.
    assert_eq!(moved.token(), Some(token.as_str()));
    let (then, now) = (&found.failure.as_ref().unwrap().trace, &moved.failure.as_ref().unwrap().trace);
    assert_ne!(then, now, "the locations differ");
    assert_eq!(then.first_difference(now), None, "the steps do not");
    // Past the summaries (a search's and a replay's), a snapshot with
    // positions redacted does not change either; one with them does.
    let failure_part = |text: String| text.split_once("\n\n").expect("a failure").1.to_string();
    let redacted = |r| failure_part(samaritan::snapshot::trace_redacted(r));
    let plain = |r| failure_part(samaritan::snapshot::trace(r));
    assert_eq!(redacted(&found), redacted(&moved));
    assert_ne!(plain(&found), plain(&moved));
}

#[test]
fn a_token_from_before_operation_fingerprints_replays_without_the_fingerprint() {
    // Flags byte 1 (fair, fingerprint with locations): the fingerprint is
    // not checked, the choices are.
    let mut bytes = vec![3, b'd', b'f', b's', 0, 1];
    bytes.extend_from_slice(&12345u32.to_le_bytes());
    bytes.extend_from_slice(&[1, 0, 1]);
    let old = encode(&bytes);
    let schedule = Schedule::from_token(&old).unwrap();
    assert_eq!((schedule.fingerprint, schedule.fair, schedule.choices.as_slice()), (0, true, &[0][..]));
    assert_eq!(replay_outcome(&old), Outcome::Pass);
}

/// Writes `content` as a version 2 token, checksum included.
fn encode(content: &[u8]) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for &b in content {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    let mut bytes = content.to_vec();
    bytes.extend_from_slice(&((h ^ (h >> 16)) as u16).to_le_bytes());
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut token = String::from("s2_");
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            token.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    token
}
