//! Schedules and replay tokens.
//!
//! A schedule is the list of choices an execution made at every decision
//! with two or more alternatives. A token carries it in a short,
//! copy-pasteable form that shells need not quote.
//!
//! Token format, version 2: `s2` `_` base64url(no padding) of
//!
//! ```text
//! strategy-name-length u8, strategy name bytes,
//! has-seed u8, [seed u64 varint],
//! flags u8 (bit 0: the fair scheduler was on; bit 1: the fingerprint
//!   covers what each step does, not where; bit 2: atomics followed the
//!   C11 memory model, whose choices of store are in the schedule (clear:
//!   sequentially consistent, as every token before the model); other
//!   bits zero),
//! fingerprint u32 little-endian,
//! run count varint, then per run: head varint, length varint,
//! checksum u16 little-endian (FNV-1a of everything before it, folded)
//! ```
//!
//! A run with an even head `2v` is `length` copies of the choice `v`; one
//! with an odd head `2p + 1` repeats the choices from `p` back, `length`
//! times (so a livelock's schedule, one pattern over and over, stays
//! short).
//!
//! A reader counts the choices the runs stand for before it expands them,
//! and refuses a token of more than the replay's step bound
//! ([`MAX_STEPS`](crate::MAX_STEPS) at most): a schedule has at most one
//! choice per step.
//!
//! The fingerprint hashes, step by step, the thread, the operation and the
//! object of the execution the token was made from (bit 1 set). Source
//! locations stay out of it, so an edit that only moves code (a comment
//! line above a test) leaves a token valid; a token whose bit 1 is clear was
//! written before that, with locations in its fingerprint, and is replayed
//! without the fingerprint check (its choices are still checked).
//!
//! Version 1 had no flags byte and only the `v, length` runs, from before
//! the fair scheduler; it is still read (as made without fairness).
//!
//! The format is an API boundary: a change bumps the version, and readers
//! name the version they got when they cannot read it.

use std::fmt;

use crate::config::MemoryModel;
use crate::outcome::Outcome;
use crate::strategy::{ChoiceError, ChoicePoint, SchedulePoint, Strategy};
use crate::ActorId;

/// The token format version this build writes and reads.
pub const TOKEN_VERSION: u32 = 2;

/// A replayable schedule plus what produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The strategy that produced it.
    pub strategy: String,
    /// The strategy's seed, if it is randomized.
    pub seed: Option<u64>,
    /// The choices, in order.
    pub choices: Vec<u32>,
    /// Fingerprint of what the execution did, step by step (thread,
    /// operation, object; not where in the source): a replay whose
    /// operations differ does not fit the program. 0 matches any program.
    pub fingerprint: u32,
    /// Whether the fair scheduler was on: it decides which actors may be
    /// chosen, so a replay must use the same setting.
    pub fair: bool,
    /// How atomics behaved (under a weak model its choices of store are
    /// part of `choices`), so a replay must use the same model.
    pub memory_model: MemoryModel,
}

/// Why a token could not be read.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// The token does not start with `s<version>_`.
    MissingPrefix,
    /// The token was written by another format version.
    UnsupportedVersion(String),
    /// A character outside the base64url alphabet, at this position.
    InvalidCharacter(usize),
    /// The token ends before its content does.
    Truncated,
    /// The checksum does not match: the token was altered or cut.
    Checksum,
    /// Bytes follow the content.
    TrailingBytes,
    /// The token sets flags this samaritan does not know.
    UnknownFlags,
    /// A run repeats choices from before the start of the schedule.
    BadBackReference,
    /// The token holds more choices than an execution of at most `max`
    /// steps can make (a schedule has one choice per step at most). It is
    /// refused before anything is allocated for them.
    TooLong {
        /// The choices it holds.
        choices: u64,
        /// The most it may hold: the step bound of the replay
        /// ([`Schedule::from_token_within`]), at most 16777216 (2^24,
        /// the longest schedule).
        max: u64,
    },
    /// A number in the token is too large for what it encodes (a choice
    /// above `u32::MAX`, a varint longer than 64 bits).
    Overflow,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::MissingPrefix => f.write_str("not a samaritan replay token: it should start with `s2_`"),
            TokenError::UnsupportedVersion(v) => write!(
                f,
                "replay token format version {v} is not supported: this samaritan reads version {TOKEN_VERSION}"
            ),
            TokenError::InvalidCharacter(at) => write!(f, "replay token has an invalid character at position {at}"),
            TokenError::Truncated => f.write_str("replay token is truncated"),
            TokenError::Checksum => f.write_str("replay token checksum does not match: it was altered or cut short"),
            TokenError::TrailingBytes => f.write_str("replay token has trailing data"),
            TokenError::BadBackReference => f.write_str("replay token refers back past the start of its schedule"),
            TokenError::TooLong { choices, max } => write!(
                f,
                "replay token holds {choices} choices, more than an execution of at most {max} steps can make"
            ),
            TokenError::Overflow => f.write_str("replay token holds a number too large for what it encodes"),
            TokenError::UnknownFlags => {
                f.write_str("replay token sets flags this samaritan does not know: it was made by a newer version")
            }
        }
    }
}

impl std::error::Error for TokenError {}

/// Flag: the fair scheduler was on.
const FLAG_FAIR: u8 = 1;

/// Flag: the fingerprint covers each step's thread, operation and object,
/// not its source location.
const FLAG_OPERATIONS: u8 = 2;
/// Flag: atomics followed the C11 memory model.
const FLAG_WEAK: u8 = 4;
/// Flag (with [`FLAG_WEAK`]): a failing compare-exchange read the newest
/// store ([`MemoryModel::WeakCasNewest`]).
const FLAG_CAS_NEWEST: u8 = 8;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

impl Schedule {
    /// Encodes the schedule as a replay token.
    pub fn to_token(&self) -> String {
        seal(self.to_bytes())
    }

    /// The token's content before its checksum and encoding.
    fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(16 + self.choices.len());
        let name = &self.strategy.as_bytes()[..self.strategy.len().min(255)];
        bytes.push(name.len() as u8);
        bytes.extend_from_slice(name);
        match self.seed {
            Some(seed) => {
                bytes.push(1);
                put_varint(&mut bytes, seed);
            }
            None => bytes.push(0),
        }
        let model = match self.memory_model {
            MemoryModel::Weak => FLAG_WEAK,
            MemoryModel::Sc => 0,
            MemoryModel::WeakCasNewest => FLAG_WEAK | FLAG_CAS_NEWEST,
        };
        bytes.push(u8::from(self.fair) | FLAG_OPERATIONS | model);
        bytes.extend_from_slice(&self.fingerprint.to_le_bytes());
        let runs = runs(&self.choices);
        put_varint(&mut bytes, runs.len() as u64);
        for run in runs {
            let (head, len) = match run {
                Run::Same(value, len) => (u64::from(value) << 1, len),
                Run::Copy(back, len) => ((back as u64) << 1 | 1, len),
            };
            put_varint(&mut bytes, head);
            put_varint(&mut bytes, len as u64);
        }
        bytes
    }

    /// Reads a replay token of at most 16777216 (2^24, the longest
    /// schedule) choices (see [`Schedule::from_token_within`]).
    pub fn from_token(token: &str) -> Result<Schedule, TokenError> {
        Schedule::from_token_within(token, crate::config::MAX_STEPS)
    }

    /// Reads a replay token for a replay whose executions take at most
    /// `max_steps` steps (capped at 16777216, the longest schedule): a
    /// token with more choices than that cannot fit the program, and is
    /// refused ([`TokenError::TooLong`]) before its choices are expanded,
    /// so what reading allocates is bounded by the step bound, not by the
    /// token (whose runs and back references make a few characters stand
    /// for millions of choices).
    pub fn from_token_within(token: &str, max_steps: u64) -> Result<Schedule, TokenError> {
        let max = max_steps.min(crate::config::MAX_STEPS);
        let token = token.trim();
        let Some(rest) = token.strip_prefix('s') else { return Err(TokenError::MissingPrefix) };
        let Some((version, body)) = rest.split_once('_') else { return Err(TokenError::MissingPrefix) };
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(TokenError::MissingPrefix);
        }
        let legacy = version == "1";
        if version != TOKEN_VERSION.to_string() && !legacy {
            return Err(TokenError::UnsupportedVersion(version.to_string()));
        }
        let offset = token.len() - body.len();
        let bytes = decode_base64(body, offset)?;
        if bytes.len() < 2 {
            return Err(TokenError::Truncated);
        }
        let (content, sum) = bytes.split_at(bytes.len() - 2);
        if checksum(content) != u16::from_le_bytes([sum[0], sum[1]]) {
            return Err(TokenError::Checksum);
        }
        let mut r = Reader { bytes: content, at: 0 };
        let name_len = r.byte()? as usize;
        let strategy = String::from_utf8_lossy(r.take(name_len)?).into_owned();
        let seed = match r.byte()? {
            0 => None,
            _ => Some(r.varint()?),
        };
        let flags = if legacy { 0 } else { r.byte()? };
        if flags & !(FLAG_FAIR | FLAG_OPERATIONS | FLAG_WEAK | FLAG_CAS_NEWEST) != 0 {
            return Err(TokenError::UnknownFlags);
        }
        let fair = flags & FLAG_FAIR != 0;
        let memory_model = match (flags & FLAG_WEAK != 0, flags & FLAG_CAS_NEWEST != 0) {
            (true, false) => MemoryModel::Weak,
            (false, false) => MemoryModel::Sc,
            (true, true) => MemoryModel::WeakCasNewest,
            (false, true) => return Err(TokenError::UnknownFlags),
        };
        let f = r.take(4)?;
        // A fingerprint with locations in it (older tokens) is not checked.
        let fingerprint = match flags & FLAG_OPERATIONS {
            0 => 0,
            _ => u32::from_le_bytes([f[0], f[1], f[2], f[3]]),
        };
        // First the runs, checked and counted; then, within the bound, the
        // choices they stand for. Each run takes two bytes at least, so the
        // list of runs is bounded by the token's length.
        let run_count = r.varint()?;
        let mut runs = Vec::new();
        let mut total = 0u64;
        for _ in 0..run_count {
            let (head, len) = (r.varint()?, r.varint()?);
            let run_len = usize::try_from(len).map_err(|_| TokenError::Overflow)?;
            let run = if legacy || head & 1 == 0 {
                let value = if legacy { head } else { head >> 1 };
                Run::Same(u32::try_from(value).map_err(|_| TokenError::Overflow)?, run_len)
            } else {
                let back = head >> 1;
                if back == 0 || back > total {
                    return Err(TokenError::BadBackReference);
                }
                Run::Copy(back as usize, run_len)
            };
            total = total.checked_add(len).ok_or(TokenError::Overflow)?;
            runs.push(run);
        }
        if r.at != content.len() {
            return Err(TokenError::TrailingBytes);
        }
        if total > max {
            return Err(TokenError::TooLong { choices: total, max });
        }
        let mut choices: Vec<u32> = Vec::with_capacity(total as usize);
        for run in runs {
            match run {
                Run::Same(value, len) => choices.extend(std::iter::repeat_n(value, len)),
                Run::Copy(back, len) => {
                    let from = choices.len() - back;
                    for i in 0..len {
                        choices.push(choices[from + i]);
                    }
                }
            }
        }
        Ok(Schedule { strategy, seed, choices, fingerprint, fair, memory_model })
    }
}

/// One run of a token's choices.
enum Run {
    /// `.1` copies of the choice `.0`.
    Same(u32, usize),
    /// `.1` choices, each a copy of the one `.0` places back.
    Copy(usize, usize),
}

/// Longest run the writer makes (no longer than the longest schedule a
/// reader accepts, [`MAX_STEPS`](crate::MAX_STEPS)).
const MAX_RUN: usize = 1 << 24;

/// Longest pattern a back reference repeats.
const MAX_BACK: usize = 64;

/// Splits `choices` into runs, greedily taking at each point whichever
/// covers more: the run of one value, or the longest repetition of a
/// pattern up to `MAX_BACK` choices long.
fn runs(choices: &[u32]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < choices.len() {
        let same = choices[i..].iter().take_while(|&&c| c == choices[i]).count();
        let copy = (2..=MAX_BACK.min(i))
            .map(|back| (back, choices[i..].iter().zip(&choices[i - back..]).take_while(|(a, b)| a == b).count()))
            .max_by_key(|&(back, len)| (len, std::cmp::Reverse(back)));
        // Runs longer than `MAX_RUN` are split.
        match copy {
            // A copy must beat the plain run by enough to pay for itself.
            Some((back, len)) if len > same + 2 => {
                let len = len.min(MAX_RUN);
                runs.push(Run::Copy(back, len));
                i += len;
            }
            _ => {
                let same = same.min(MAX_RUN);
                runs.push(Run::Same(choices[i], same));
                i += same;
            }
        }
    }
    runs
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends the checksum to a token's content and encodes it as a token.
fn seal(mut bytes: Vec<u8>) -> String {
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    let mut token = format!("s{TOKEN_VERSION}_");
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            token.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    token
}

fn checksum(bytes: &[u8]) -> u16 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (h ^ (h >> 16)) as u16
}

fn decode_base64(text: &str, offset: usize) -> Result<Vec<u8>, TokenError> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, ch) in text.bytes().enumerate() {
        let Some(v) = ALPHABET.iter().position(|&a| a == ch) else {
            return Err(TokenError::InvalidCharacter(offset + i));
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A canonical encoding ends on a whole character with its spare bits
    // zero: otherwise two texts would read as one token.
    if bits >= 6 || acc != 0 {
        return Err(TokenError::InvalidCharacter(offset + text.len() - 1));
    }
    Ok(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, TokenError> {
        Ok(self.take(1)?[0])
    }

    fn take(&mut self, n: usize) -> Result<&[u8], TokenError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(TokenError::Truncated)?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn varint(&mut self) -> Result<u64, TokenError> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(TokenError::Overflow)
    }
}

/// Replays a schedule exactly, reporting where it stops fitting.
#[derive(Debug)]
pub struct Replay {
    schedule: Schedule,
    at: usize,
    started: bool,
}

impl Replay {
    /// Creates a replay of `schedule`.
    pub fn new(schedule: Schedule) -> Replay {
        Replay { schedule, at: 0, started: false }
    }

    fn next(&mut self, alternatives: usize, what: &str) -> Result<u32, ChoiceError> {
        let Some(&choice) = self.schedule.choices.get(self.at) else {
            return Err(ChoiceError::ScheduleMismatch {
                detail: format!(
                    "the schedule ended after {} choices but the execution needs another {what} (from {alternatives} alternatives)",
                    self.schedule.choices.len()
                ),
            });
        };
        self.at += 1;
        Ok(choice)
    }

    /// Returns how many choices of the schedule were not used.
    pub fn unused(&self) -> usize {
        self.schedule.choices.len() - self.at.min(self.schedule.choices.len())
    }

    /// Returns the schedule being replayed.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }
}

impl Strategy for Replay {
    fn name(&self) -> &'static str {
        "replay"
    }

    fn begin_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if point.enabled.len() == 1 {
            return Ok(point.enabled[0]);
        }
        let choice = self.next(point.enabled.len(), "thread choice")?;
        Ok(ActorId(choice))
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        Ok(self.next(point.alternatives, "data choice")? as usize)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {}

    fn exhausted(&self) -> bool {
        self.started
    }

    fn seed(&self) -> Option<u64> {
        self.schedule.seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schedule's token with its flag byte replaced by `flags`.
    fn with_flags(schedule: &Schedule, flags: u8) -> String {
        let mut bytes = schedule.to_bytes();
        // The name's length, the name, no seed, then the flags.
        bytes[1 + schedule.strategy.len() + 1] = flags;
        seal(bytes)
    }

    #[test]
    fn each_memory_model_has_its_flags_and_no_other_combination_reads() {
        let schedule = |memory_model| Schedule {
            strategy: "dfs".into(),
            seed: None,
            choices: vec![1, 0, 2],
            fingerprint: 9,
            fair: true,
            memory_model,
        };
        for model in [MemoryModel::Weak, MemoryModel::Sc, MemoryModel::WeakCasNewest] {
            let s = schedule(model);
            assert_eq!(Schedule::from_token(&s.to_token()), Ok(s));
        }
        let s = schedule(MemoryModel::Weak);
        let fair = FLAG_FAIR | FLAG_OPERATIONS;
        assert_eq!(with_flags(&s, fair | FLAG_WEAK), s.to_token());
        // Loom's approximation without the weak model is no model.
        assert_eq!(Schedule::from_token(&with_flags(&s, fair | FLAG_CAS_NEWEST)), Err(TokenError::UnknownFlags));
        assert_eq!(Schedule::from_token(&with_flags(&s, fair | FLAG_WEAK | 16)), Err(TokenError::UnknownFlags));
        let newest = Schedule::from_token(&with_flags(&s, fair | FLAG_WEAK | FLAG_CAS_NEWEST)).unwrap();
        assert_eq!(newest.memory_model, MemoryModel::WeakCasNewest);
    }
}
