//! The two artifact formats, traces and replay tokens: both round-trip, and
//! no input makes their parsers panic (property tests over generated and
//! mutated inputs; `fuzz/` has the cargo-fuzz targets for longer runs).
#![cfg(feature = "sim")]

use samaritan::{Op, ReadFrom, Schedule, Trace, TraceLine};

/// A small deterministic generator (xorshift64*).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A string from a pool of awkward characters.
    fn text(&mut self) -> String {
        const POOL: &[char] =
            &['a', 'Z', ' ', '"', '\\', '-', '<', '(', ')', '#', '\n', '\t', '\u{7}', 'é', '→', '=', '0'];
        (0..self.below(6)).map(|_| POOL[self.below(POOL.len())]).collect()
    }
}

fn random_trace(g: &mut Gen) -> Trace {
    let lines = (0..g.below(8))
        .map(|index| {
            // A trace shows every operation as a name it reads back as.
            let op = Op::ALL[g.below(Op::ALL.len())].shown();
            TraceLine {
                index,
                actor: g.text(),
                op,
                object: (g.below(2) == 0).then(|| g.text()),
                location: g.text(),
                value: (op == Op::Choose).then(|| g.next() as u32),
                preempt: g.below(3) == 0,
                read: (op != Op::Choose && g.below(2) == 0).then(|| {
                    let value = ["0", "-1", "true", "null"].get(g.below(5)).map(|v| v.to_string());
                    let store = (g.below(3) != 0).then(|| (g.text(), g.text()));
                    // Only a store made by a thread can be an RMW's.
                    let rmw = store.is_some() && g.below(2) == 0;
                    ReadFrom { value, store, rmw }
                }),
                // A note is one line (the engine makes it so).
                note: (g.below(3) == 0).then(|| g.text().replace(['\n', '\r'], "")),
            }
        })
        .collect();
    Trace { lines }
}

#[test]
fn traces_round_trip_whatever_their_names() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let trace = random_trace(&mut g);
        assert_eq!(Trace::parse(&trace.to_file()).as_ref(), Ok(&trace), "{}", trace.to_file());
    }
}

#[test]
fn no_mutation_of_a_trace_makes_the_parser_panic() {
    let mut g = Gen(42);
    for _ in 0..3000 {
        let mut bytes = random_trace(&mut g).to_file().into_bytes();
        for _ in 0..1 + g.below(4) {
            if bytes.is_empty() {
                break;
            }
            let at = g.below(bytes.len());
            match g.below(3) {
                0 => bytes[at] = g.next() as u8,
                1 => {
                    bytes.remove(at);
                }
                _ => {
                    const AWKWARD: &[u8] = b"\"\\ -=<(#u{}0\n";
                    bytes.insert(at, AWKWARD[g.below(AWKWARD.len())]);
                }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        // Either reads or says why; a panic fails the test.
        if let Err(err) = Trace::parse(&text) {
            assert!(!err.to_string().is_empty());
        }
    }
}

#[test]
fn tokens_round_trip_and_garbage_never_panics() {
    let mut g = Gen(7);
    for _ in 0..3000 {
        let choices: Vec<u32> = (0..g.below(300)).map(|_| g.below(4) as u32).collect();
        let schedule = Schedule {
            strategy: ["icb", "dfs", "random", "pct"][g.below(4)].to_string(),
            seed: (g.below(2) == 0).then(|| g.next()),
            choices,
            fingerprint: g.next() as u32,
            fair: g.below(2) == 0,
            memory_model: [
                samaritan::MemoryModel::Weak,
                samaritan::MemoryModel::Sc,
                samaritan::MemoryModel::WeakCasNewest,
            ][g.below(3)],
        };
        assert_eq!(Schedule::from_token(&schedule.to_token()), Ok(schedule));
        const ALPHABET: &[u8] = b"s12_AZaz09-_*=";
        let garbage: String = (0..g.below(40)).map(|_| char::from(ALPHABET[g.below(ALPHABET.len())])).collect();
        let _ = Schedule::from_token(&garbage);
    }
}
