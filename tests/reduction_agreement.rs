//! Soundness evidence for the reductions: on generated programs (two or
//! three threads, locks, atomics and cells, a final assertion), exhaustive
//! DFS and the partial-order reductions reach the same set of final
//! outcomes, agree on whether the assertion can fail, and agree on whether
//! the cells race.
#![cfg(feature = "sim")]

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use samaritan::cell::UnsafeCell;
use samaritan::sync::atomic::{AtomicU32, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::thread;
use samaritan::{Builder, Outcome, Report, SearchStrategy};

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
}

/// One instruction of a generated thread. Registers are per thread.
#[derive(Clone, Copy, Debug)]
enum Ins {
    /// `reg = atomic[a].load()`
    Load(usize),
    /// `atomic[a].store(reg + k)`
    Store(usize, u32),
    /// `reg = atomic[a].fetch_add(k)`
    FetchAdd(usize, u32),
    /// `reg = atomic[a].compare_exchange(reg, reg + 1)` as 0/1
    Cas(usize),
    /// Under lock `l`: `shared[l] = shared[l] * 3 + reg + 1; reg = shared[l]`.
    Locked(usize),
    /// With no lock: `cell[c] = cell[c] * 3 + reg + 1; reg = cell[c]` (a
    /// read and a write of a cell, which may race).
    Cell(usize),
}

/// Cells the generated threads share; what orders their accesses is up to
/// the program, and the race detector checks it.
struct Cells(Vec<UnsafeCell<u32>>);

// SAFETY: the programs run only inside explorations, where the threads are
// coroutines on one OS thread, so accesses never overlap in time; racy
// orders are what the tests look for.
unsafe impl Sync for Cells {}

/// A generated program: its threads' instructions.
#[derive(Clone, Debug)]
struct Program {
    threads: Vec<Vec<Ins>>,
    atomics: usize,
    locks: usize,
    cells: usize,
}

impl Program {
    /// A program of at most 8 instructions, so that DFS stays fast.
    fn generate(g: &mut Gen) -> Program {
        Program::generate_with(g, 0)
    }

    /// The same with `cells` cells that some instructions touch unlocked.
    fn generate_with(g: &mut Gen, cells: usize) -> Program {
        loop {
            let program = Program::generate_any(g, cells);
            if program.threads.iter().map(Vec::len).sum::<usize>() <= 8 {
                return program;
            }
        }
    }

    fn generate_any(g: &mut Gen, cells: usize) -> Program {
        let threads = 2 + g.below(2);
        let atomics = 1 + g.below(2);
        let locks = 1 + g.below(2);
        let max_len = if threads == 3 { 3 } else { 4 };
        let threads = (0..threads)
            .map(|_| {
                (0..1 + g.below(max_len))
                    .map(|_| match g.below(if cells > 0 { 7 } else { 5 }) {
                        5 | 6 => Ins::Cell(g.below(cells)),
                        0 => Ins::Load(g.below(atomics)),
                        1 => Ins::Store(g.below(atomics), 1 + g.below(2) as u32),
                        2 => Ins::FetchAdd(g.below(atomics), 1 + g.below(2) as u32),
                        3 => Ins::Cas(g.below(atomics)),
                        _ => Ins::Locked(g.below(locks)),
                    })
                    .collect()
            })
            .collect();
        Program { threads, atomics, locks, cells }
    }

    /// Runs the program once; returns its outcome (every register and
    /// final value).
    fn run(&self) -> Vec<u32> {
        let atomics: Arc<Vec<AtomicU32>> = Arc::new((0..self.atomics).map(|_| AtomicU32::new(0)).collect());
        let locks: Arc<Vec<Mutex<u32>>> = Arc::new((0..self.locks).map(|_| Mutex::new(0)).collect());
        let cells = Arc::new(Cells((0..self.cells).map(|_| UnsafeCell::new(0)).collect()));
        let handles: Vec<_> = self
            .threads
            .iter()
            .map(|body| {
                let (body, atomics, locks, cells) = (body.clone(), atomics.clone(), locks.clone(), cells.clone());
                thread::spawn(move || {
                    let mut reg = 0u32;
                    let mut seen = Vec::new();
                    for ins in body {
                        match ins {
                            Ins::Load(a) => reg = atomics[a].load(Ordering::SeqCst),
                            Ins::Store(a, k) => atomics[a].store(reg + k, Ordering::SeqCst),
                            Ins::FetchAdd(a, k) => reg = atomics[a].fetch_add(k, Ordering::SeqCst),
                            Ins::Cas(a) => {
                                let ok = atomics[a].compare_exchange(reg, reg + 1, Ordering::SeqCst, Ordering::SeqCst);
                                reg = u32::from(ok.is_ok());
                            }
                            Ins::Locked(l) => {
                                let mut shared = locks[l].lock().unwrap();
                                *shared = *shared * 3 + reg + 1;
                                reg = *shared;
                            }
                            Ins::Cell(c) => {
                                let old = cells.0[c].with(|p| {
                                    // SAFETY: see `Cells`.
                                    unsafe { *p }
                                });
                                reg = old * 3 + reg + 1;
                                cells.0[c].with_mut(|p| {
                                    // SAFETY: see `Cells`.
                                    unsafe { *p = reg }
                                });
                            }
                        }
                        seen.push(reg);
                    }
                    seen
                })
            })
            .collect();
        let mut outcome: Vec<u32> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
        outcome.extend(atomics.iter().map(|a| a.load(Ordering::SeqCst)));
        outcome.extend(locks.iter().map(|l| *l.lock().unwrap()));
        outcome.extend(cells.0.iter().map(|c| {
            // SAFETY: every thread has been joined.
            c.with(|p| unsafe { *p })
        }));
        outcome
    }
}

/// Outcomes seen by the exploration running now.
static SEEN: StdMutex<BTreeSet<Vec<u32>>> = StdMutex::new(BTreeSet::new());

/// Held by each test for its whole run: `SEEN` serves one exploration at a
/// time.
static SERIAL: StdMutex<()> = StdMutex::new(());

fn outcomes(program: &Program, strategy: SearchStrategy, bound: u32) -> (Report, BTreeSet<Vec<u32>>) {
    SEEN.lock().unwrap().clear();
    let p = program.clone();
    let report = Builder::new()
        .strategy(strategy)
        .preemption_bound(bound)
        .persist(false)
        .minimize(false)
        .explore(move || {
            let outcome = p.run();
            SEEN.lock().unwrap().insert(outcome);
        })
        .unwrap();
    (report, std::mem::take(&mut *SEEN.lock().unwrap()))
}

/// Whether the assertion "the outcome is not `bad`" fails under `strategy`.
fn finds(program: &Program, strategy: SearchStrategy, bad: &[u32]) -> bool {
    let (p, bad) = (program.clone(), bad.to_vec());
    let report = Builder::new()
        .strategy(strategy)
        .persist(false)
        .minimize(false)
        .explore(move || assert_ne!(p.run(), bad, "the bad outcome"))
        .unwrap();
    match report.outcome {
        Outcome::Pass => false,
        Outcome::Panic { ref message, .. } if message.contains("the bad outcome") => true,
        _ => panic!("unexpected verdict for {program:?}:\n{report}"),
    }
}

#[test]
fn dpor_reaches_every_outcome_dfs_reaches() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x005e_ed0f_d90f);
    let (mut dfs_total, mut dpor_total, mut programs) = (0u64, 0u64, 0);
    for _ in 0..200 {
        let program = Program::generate(&mut g);
        let (dfs, expected) = outcomes(&program, SearchStrategy::Dfs, 0);
        assert!(dfs.exhausted && !dfs.is_failure(), "{program:?}\n{dfs}");
        let (dpor, got) = outcomes(&program, SearchStrategy::Dpor, 0);
        assert!(dpor.exhausted && !dpor.is_failure(), "{program:?}\n{dpor}");
        assert_eq!(
            got,
            expected,
            "outcomes differ for {program:?}: missing {:?}",
            expected.difference(&got).collect::<Vec<_>>()
        );
        assert!(dpor.executions <= dfs.executions, "{program:?}: dpor {} vs dfs {}", dpor.executions, dfs.executions);
        // The rarest kind of bug: the last outcome in order, reached by
        // few schedules. Both searches must find it.
        let bad = expected.iter().next_back().unwrap();
        assert!(finds(&program, SearchStrategy::Dfs, bad));
        assert!(finds(&program, SearchStrategy::Dpor, bad), "dpor misses {bad:?} in {program:?}");
        dfs_total += dfs.executions;
        dpor_total += dpor.executions;
        programs += 1;
    }
    // The reduction pays: far fewer executions in total.
    assert_eq!(programs, 200);
    assert!(dpor_total * 3 < dfs_total, "dpor {dpor_total} vs dfs {dfs_total}");
}

#[test]
fn cb_por_reaches_every_outcome_icb_reaches_at_each_bound() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0xb00d_5eed);
    let (mut icb_total, mut por_total) = (0u64, 0u64);
    for _ in 0..120 {
        let program = Program::generate(&mut g);
        for bound in 0..=2 {
            let (icb, expected) = outcomes(&program, SearchStrategy::Icb, bound);
            assert!(icb.exhausted && !icb.is_failure(), "{program:?}\n{icb}");
            let (por, got) = outcomes(&program, SearchStrategy::CbPor, bound);
            assert!(por.exhausted && !por.is_failure(), "{program:?}\n{por}");
            assert_eq!(
                got,
                expected,
                "bound {bound}: outcomes differ for {program:?}: missing {:?}",
                expected.difference(&got).collect::<Vec<_>>()
            );
            assert!(
                por.executions <= icb.executions,
                "{program:?}: cb-por {} vs icb {}",
                por.executions,
                icb.executions
            );
            icb_total += icb.executions;
            por_total += por.executions;
        }
    }
    eprintln!("icb {icb_total} cbpor {por_total}");
    assert!(por_total * 2 < icb_total, "cb-por {por_total} vs icb {icb_total}");
}

/// What an exploration of a program with cells says: the set of outcomes
/// when nothing races, or that a race was found.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Outcomes(BTreeSet<Vec<u32>>),
    Race,
}

fn verdict(program: &Program, strategy: SearchStrategy, bound: u32) -> (Report, Verdict) {
    let (report, seen) = outcomes(program, strategy, bound);
    let verdict = match &report.outcome {
        Outcome::Pass => Verdict::Outcomes(seen),
        Outcome::DataRace { .. } => Verdict::Race,
        _ => panic!("unexpected verdict for {program:?}:\n{report}"),
    };
    (report, verdict)
}

#[test]
fn the_reductions_find_a_race_exactly_when_brute_force_does() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x00ce_11ce_11ce);
    let (mut races, mut clean) = (0, 0);
    for _ in 0..200 {
        let cells = 1 + g.below(2);
        let program = Program::generate_with(&mut g, cells);
        let (dfs, expected) = verdict(&program, SearchStrategy::Dfs, 0);
        let (dpor, got) = verdict(&program, SearchStrategy::Dpor, 0);
        assert_eq!(got, expected, "dpor vs dfs on {program:?}\n{dfs}\n{dpor}");
        for bound in [0, 2] {
            let (icb, expected) = verdict(&program, SearchStrategy::Icb, bound);
            let (por, got) = verdict(&program, SearchStrategy::CbPor, bound);
            assert_eq!(got, expected, "cb-por vs icb at bound {bound} on {program:?}\n{icb}\n{por}");
        }
        match expected {
            Verdict::Race => races += 1,
            Verdict::Outcomes(_) => clean += 1,
        }
    }
    // Both kinds are well represented (fixed by the seed).
    assert_eq!((races, clean), (46, 154), "racy and clean programs");
}
