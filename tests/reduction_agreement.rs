//! Soundness evidence for the reductions: on generated programs (two or
//! three threads, locks, atomics and cells, a final assertion; and programs
//! that also signal and wait on condition variables, sleep and use
//! channels; and programs with reader-writer locks, recursive reads and
//! rendezvous channels; and programs that clone, drop, count and unwrap
//! one `counted::Arc`), exhaustive DFS and the partial-order reductions
//! reach the
//! same set of final outcomes, agree on whether the assertion can fail, and
//! agree on whether the cells race; and cb-por and bounded partial-order
//! reduction (`bpor`) never run more executions than ICB at the same
//! bound.
#![cfg(feature = "sim")]

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use samaritan::{Builder, Outcome, Report, SearchStrategy, Shard};

mod common;

use common::finish_programs::FinProgram;
use common::programs::{Gen, Orders, Program};
use common::ref_programs::RefProgram;

/// Outcomes seen by the exploration running now.
static SEEN: StdMutex<BTreeSet<Vec<u32>>> = StdMutex::new(BTreeSet::new());

/// Held by each test for its whole run: `SEEN` serves one exploration at a
/// time.
static SERIAL: StdMutex<()> = StdMutex::new(());

fn outcomes(program: &Program, strategy: SearchStrategy, bound: u32) -> (Report, BTreeSet<Vec<u32>>) {
    outcomes_with(program, strategy, bound, true)
}

/// DFS runs on a program at most this many executions in
/// [`outcomes_with`] (a program it cannot exhaust is too big to compare).
const DFS_CAP: u64 = 20_000;

/// [`outcomes`], with the fair scheduler on or off.
fn outcomes_with(
    program: &Program,
    strategy: SearchStrategy,
    bound: u32,
    fairness: bool,
) -> (Report, BTreeSet<Vec<u32>>) {
    let p = program.clone();
    let mut builder = Builder::new().strategy(strategy).preemption_bound(bound).fairness(fairness);
    if !fairness && strategy == SearchStrategy::Dfs {
        builder = builder.max_executions(DFS_CAP);
    }
    collect(builder, move || p.run())
}

/// Explores `run` under `builder` (no persistence, no shrinking) and
/// returns the report and the set of outcomes `run` returned.
fn collect(builder: Builder, run: impl Fn() -> Vec<u32> + Send + Sync + 'static) -> (Report, BTreeSet<Vec<u32>>) {
    SEEN.lock().unwrap().clear();
    let report = builder
        .persist(false)
        .minimize(false)
        .explore(move || {
            let outcome = run();
            SEEN.lock().unwrap().insert(outcome);
        })
        .unwrap();
    (report, std::mem::take(&mut *SEEN.lock().unwrap()))
}

/// The outcomes the `n` shards of `strategy`'s search of `program` reach
/// together, and their executions added up; every shard must pass and
/// exhaust its part.
fn shard_outcomes(program: &Program, strategy: SearchStrategy, n: u32) -> (u64, BTreeSet<Vec<u32>>) {
    let (mut executions, mut all) = (0, BTreeSet::new());
    for i in 1..=n {
        SEEN.lock().unwrap().clear();
        let p = program.clone();
        let report = Builder::new()
            .strategy(strategy)
            .shard(Shard::new(i, n).unwrap())
            .persist(false)
            .minimize(false)
            .explore(move || {
                let outcome = p.run();
                SEEN.lock().unwrap().insert(outcome);
            })
            .unwrap();
        assert!(report.exhausted && !report.is_failure(), "{program:?}\n{report}");
        executions += report.executions;
        all.append(&mut SEEN.lock().unwrap());
    }
    (executions, all)
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
        let dpor = dpor_agrees_with_dfs(&program, &dfs, &expected, outcomes(&program, SearchStrategy::Dpor, 0));
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

/// DPOR cut into shards explores every order of the decisions before a
/// shard's prefix is known, so that no shard needs races another shard
/// found: together the shards reach what DFS reaches; cb-por's reach what
/// ICB reaches at the same bound. DFS's and ICB's shards add up to exactly
/// the whole search.
#[test]
fn shards_together_reach_every_outcome_the_whole_search_reaches() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x5a4d_5eed);
    let (mut dpor_total, mut sharded_total) = (0u64, 0u64);
    for _ in 0..60 {
        let program = Program::generate(&mut g);
        let (dfs, expected) = outcomes(&program, SearchStrategy::Dfs, 0);
        let (dpor, _) = outcomes(&program, SearchStrategy::Dpor, 0);
        for n in [2, 3] {
            let (executions, got) = shard_outcomes(&program, SearchStrategy::Dpor, n);
            assert_eq!(
                got,
                expected,
                "dpor in {n} shards misses {:?} in {program:?}",
                expected.difference(&got).collect::<Vec<_>>()
            );
            assert!(
                executions <= dfs.executions,
                "{program:?}: {n} dpor shards {executions} vs dfs {}",
                dfs.executions
            );
            sharded_total += executions;
            dpor_total += dpor.executions;
            let (executions, got) = shard_outcomes(&program, SearchStrategy::Dfs, n);
            assert_eq!((executions, &got), (dfs.executions, &expected), "dfs in {n} shards, {program:?}");
        }
        let (icb, expected) = outcomes(&program, SearchStrategy::Icb, 2);
        let (executions, got) = shard_outcomes(&program, SearchStrategy::Icb, 3);
        assert_eq!((executions, &got), (icb.executions, &expected), "icb in 3 shards, {program:?}");
        // cb-por's and bpor's shards (at the default bound, 2) reach what
        // ICB does.
        for reduction in BOUNDED {
            let (_, got) = shard_outcomes(&program, *reduction, 3);
            assert_eq!(got, expected, "{reduction:?} in 3 shards, {program:?}");
        }
    }
    // What the full expansion before the split costs DPOR on programs this
    // small (on a search of 10^5 executions, BENCHMARKS.md, much less).
    assert_eq!((dpor_total, sharded_total), (1750, 3136));
}

/// Workers that steal work from each other (`Builder::workers`): DPOR's
/// reach what DFS reaches, races included, in a few more executions than
/// one DPOR search; DFS's count exactly what one DFS search counts;
/// cb-por's reach what ICB reaches at their bound.
#[test]
fn workers_that_steal_work_reach_every_outcome_the_whole_search_reaches() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x57ea_15ed);
    let mut programs: Vec<Program> = (0..40).map(|_| Program::generate(&mut g)).collect();
    programs.extend((0..40).map(|_| Program::generate_with(&mut g, 1)));
    programs.extend((0..30).map(|_| Program::generate_blocking(&mut g)));
    programs.extend((0..30).map(|_| Program::generate_weak(&mut g)));
    let (mut one, mut teams, mut races, mut checked) = (0u64, 0u64, 0, 0);
    for program in &programs {
        let (dfs, _) = outcomes_with(program, SearchStrategy::Dfs, 0, false);
        if !dfs.exhausted && !dfs.is_failure() {
            // Too big for brute force in a test's time: left out.
            continue;
        }
        checked += 1;
        let (dfs, expected) = verdict(program, SearchStrategy::Dfs, 0);
        let (dpor, _) = verdict(program, SearchStrategy::Dpor, 0);
        races += usize::from(expected == Verdict::Race);
        for workers in [2, 3] {
            let team = |strategy| {
                let p = program.clone();
                let builder = Builder::new().strategy(strategy).workers(workers);
                let (report, seen) = collect(builder, move || p.run());
                let verdict = match report.outcome {
                    Outcome::Pass => Verdict::Outcomes(seen),
                    Outcome::DataRace { .. } => Verdict::Race,
                    _ => panic!("unexpected verdict for {program:?}:\n{report}"),
                };
                (report, verdict)
            };
            let (report, got) = team(SearchStrategy::Dpor);
            assert_eq!(got, expected, "dpor with {workers} workers on {program:?}\n{report}");
            if expected != Verdict::Race {
                assert!(report.exhausted, "{program:?}\n{report}");
                teams += report.executions;
                one += dpor.executions;
            }
            let (report, got) = team(SearchStrategy::Dfs);
            assert_eq!(got, expected, "dfs with {workers} workers on {program:?}\n{report}");
            if expected != Verdict::Race {
                assert_eq!(report.executions, dfs.executions, "dfs with {workers} workers on {program:?}");
            }
            // cb-por's and bpor's workers reach what ICB reaches at the same
            // bound (the default, 2).
            let (_, icb) = verdict(program, SearchStrategy::Icb, 2);
            for reduction in BOUNDED {
                let (report, got) = team(*reduction);
                assert_eq!(got, icb, "{} with {workers} workers on {program:?}\n{report}", report.strategy);
            }
        }
    }
    // Programs small enough to check, and those that race (fixed by the
    // seed); DPOR's executions, one search's and the teams' (which vary
    // with timing: 3,222 against 3,275 in one run before weak loads
    // commuted with the stores before them, 2,592 now).
    assert_eq!((checked, races, one), (132, 14, 2592));
    assert!(teams * 2 > one && teams * 2 < one * 3, "dpor teams {teams}, one worker {one}");
}

/// Asserts that DPOR's exploration of `program` (its report and outcomes,
/// `dpor`) exhausted its space and reached exactly DFS's outcomes,
/// `expected`, in no more executions than DFS's report `dfs`; returns
/// DPOR's report.
#[track_caller]
fn dpor_agrees_with_dfs(
    program: &dyn std::fmt::Debug,
    dfs: &Report,
    expected: &BTreeSet<Vec<u32>>,
    dpor: (Report, BTreeSet<Vec<u32>>),
) -> Report {
    let (dpor, got) = dpor;
    assert!(dpor.exhausted && !dpor.is_failure(), "{program:?}\n{dpor}");
    assert_eq!(&got, expected, "dpor misses {:?} in {program:?}", expected.difference(&got).collect::<Vec<_>>());
    assert!(dpor.executions <= dfs.executions, "{program:?}: dpor {} vs dfs {}", dpor.executions, dfs.executions);
    dpor
}

/// Both bounded reductions.
const BOUNDED: &[SearchStrategy] = &[SearchStrategy::CbPor, SearchStrategy::Bpor];

/// Asserts that the `reductions` (cb-por, bpor or both, in that order),
/// run on `program` by `explore`, reach at `bound` the outcomes ICB
/// reaches, all exhausting their space, in no more executions; returns
/// (ICB's executions, cb-por's, bpor's), 0 for a reduction not run.
#[track_caller]
fn bounded_agree_with_icb(
    program: &dyn std::fmt::Debug,
    bound: u32,
    reductions: &[SearchStrategy],
    explore: impl Fn(SearchStrategy, u32) -> (Report, BTreeSet<Vec<u32>>),
) -> (u64, u64, u64) {
    let (icb, expected) = explore(SearchStrategy::Icb, bound);
    assert!(icb.exhausted && !icb.is_failure(), "{program:?}\n{icb}");
    let mut counts = [0; 2];
    for (count, reduction) in counts.iter_mut().zip(BOUNDED) {
        if !reductions.contains(reduction) {
            continue;
        }
        let reduction = *reduction;
        let (por, got) = explore(reduction, bound);
        let name = &por.strategy;
        assert!(por.exhausted && !por.is_failure(), "{program:?}\n{por}");
        assert_eq!(
            got,
            expected,
            "bound {bound}: {name} misses {:?} in {program:?}",
            expected.difference(&got).collect::<Vec<_>>()
        );
        assert!(por.executions <= icb.executions, "{program:?}: {name} {} vs icb {}", por.executions, icb.executions);
        *count = por.executions;
    }
    (icb.executions, counts[0], counts[1])
}

/// Executions summed over programs: DPOR's, and ICB's, cb-por's and
/// bpor's over bounds 0 to 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    dpor: u64,
    icb: u64,
    cb_por: u64,
    bpor: u64,
}

impl std::ops::AddAssign for Totals {
    fn add_assign(&mut self, other: Totals) {
        self.dpor += other.dpor;
        self.add_bounded((other.icb, other.cb_por, other.bpor));
    }
}

impl Totals {
    /// Adds the three bounded searches' executions of one program at one
    /// bound.
    fn add_bounded(&mut self, (icb, cb_por, bpor): (u64, u64, u64)) {
        (self.icb, self.cb_por, self.bpor) = (self.icb + icb, self.cb_por + cb_por, self.bpor + bpor);
    }
}

/// Asserts, for `program` explored by `explore`, that DPOR reaches DFS's
/// outcomes `expected` (DFS's report `dfs`) and cb-por and bpor ICB's at
/// bounds 0 to 2 ([`dpor_agrees_with_dfs`], [`bounded_agree_with_icb`]);
/// returns the executions of each.
#[track_caller]
fn reductions_agree(
    program: &dyn std::fmt::Debug,
    dfs: &Report,
    expected: &BTreeSet<Vec<u32>>,
    explore: impl Fn(SearchStrategy, u32) -> (Report, BTreeSet<Vec<u32>>),
) -> Totals {
    let dpor = dpor_agrees_with_dfs(program, dfs, expected, explore(SearchStrategy::Dpor, 0));
    let mut totals = Totals { dpor: dpor.executions, ..Totals::default() };
    for bound in 0..=2 {
        totals.add_bounded(bounded_agree_with_icb(program, bound, BOUNDED, &explore));
    }
    totals
}

/// Checks the `reductions` against ICB at bounds 0 to 2
/// ([`bounded_agree_with_icb`]) on `n` programs drawn by `generate` from
/// `seed`; returns the executions summed.
fn bounded_agree_with_icb_on(
    seed: u64,
    n: usize,
    reductions: &[SearchStrategy],
    generate: impl Fn(&mut Gen) -> Program,
) -> Totals {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(seed);
    let mut totals = Totals::default();
    for _ in 0..n {
        let program = generate(&mut g);
        for bound in 0..=2 {
            totals.add_bounded(bounded_agree_with_icb(&program, bound, reductions, |s, b| outcomes(&program, s, b)));
        }
    }
    totals
}

#[test]
fn cb_por_and_bpor_reach_every_outcome_icb_reaches_at_each_bound() {
    let totals = bounded_agree_with_icb_on(0xb00d_5eed, 120, BOUNDED, Program::generate);
    assert_eq!((totals.icb, totals.cb_por, totals.bpor), (30_009, 2_529, 4_246));
}

/// bpor counting its bound as loom does (`Builder::loom_bound`: once an
/// execution has spent the bound it takes no other switch, free ones
/// included) covers less than the bound, but every execution with one
/// preemption fewer: at bound `b` it reaches every outcome ICB reaches at
/// `b - 1`, on programs with locks and atomics, on every kind of atomic
/// access, with condition variables, sleeps and channels, and with
/// reference counts.
#[test]
fn bpor_counting_as_loom_reaches_every_outcome_of_the_bound_below() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    /// Checks one program: ICB at `b - 1` by `explore(strategy, bound,
    /// loom)` against bpor counted as loom at `b`, for `b` in 1 to 3;
    /// returns their executions.
    fn check(
        program: &dyn std::fmt::Debug,
        explore: impl Fn(SearchStrategy, u32, bool) -> (Report, BTreeSet<Vec<u32>>),
    ) -> (u64, u64) {
        let (mut icb_total, mut loom_total) = (0, 0);
        for bound in 1..=3 {
            let (icb, expected) = explore(SearchStrategy::Icb, bound - 1, false);
            assert!(icb.exhausted && !icb.is_failure(), "{program:?}\n{icb}");
            let (loom, got) = explore(SearchStrategy::Bpor, bound, true);
            assert!(loom.exhausted && !loom.is_failure() && loom.bound_ends_switches, "{program:?}\n{loom}");
            assert!(
                got.is_superset(&expected),
                "bound {bound}: loom's count misses {:?} in {program:?}",
                expected.difference(&got).collect::<Vec<_>>()
            );
            (icb_total, loom_total) = (icb_total + icb.executions, loom_total + loom.executions);
        }
        (icb_total, loom_total)
    }
    let with = |program: &Program, fairness: bool| {
        let p = program.clone();
        move |strategy, bound, loom| {
            let p = p.clone();
            let builder = Builder::new().strategy(strategy).preemption_bound(bound).loom_bound(loom).fairness(fairness);
            collect(builder, move || p.run())
        }
    };
    let mut totals = Vec::new();
    let mut g = Gen(0xb00d_5eed);
    let programs: Vec<Program> = (0..120).map(|_| Program::generate(&mut g)).collect();
    totals.push(programs.iter().map(|p| check(p, with(p, true))).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)));
    let mut g = Gen(0x3a11_5eed);
    let programs: Vec<Program> = (0..100).map(|_| Program::generate_mixed(&mut g)).collect();
    let clean: Vec<&Program> =
        programs.iter().filter(|p| !outcomes(p, SearchStrategy::Dpor, 0).0.is_failure()).collect();
    totals.push(clean.iter().map(|p| check(p, with(p, true))).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)));
    let mut g = Gen(0x0b10_c4ed);
    let programs: Vec<Program> = (0..60).map(|_| Program::generate_blocking(&mut g)).collect();
    totals.push(programs.iter().map(|p| check(p, with(p, false))).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)));
    let mut g = Gen(0x00a2_c0de);
    let programs: Vec<RefProgram> = (0..60).map(|_| RefProgram::generate(&mut g)).collect();
    let refs = programs.iter().map(|p| {
        check(p, |strategy, bound, loom| {
            let p = p.clone();
            collect(Builder::new().strategy(strategy).preemption_bound(bound).loom_bound(loom), move || p.run())
        })
    });
    totals.push(refs.fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)));
    // ICB's executions at bounds 0 to 2 and loom's count's at 1 to 3, per
    // kind of program (fixed by the seeds).
    assert_eq!(totals, vec![(30_009, 6_251), (65_795, 9_841), (45_587, 2_478), (20_840, 24_581)]);
}

/// Programs whose threads wait for each other in spin loops that yield,
/// under the fair scheduler (which filters who may run by what each
/// thread's yields kept waiting): cb-por caches what it explored from a
/// state after a yield keyed by the scheduler's state too
/// (`SchedulePoint::fairness`), and must still reach ICB's outcomes.
#[test]
fn cb_por_reaches_every_outcome_icb_reaches_in_programs_that_spin() {
    let totals = bounded_agree_with_icb_on(0x5917_1e55, 100, &[SearchStrategy::CbPor], Program::generate_spinning);
    // Keyed by the program's state alone, cb-por misses outcomes here (at
    // bound 1: a thread that spun three or four times); left out of the
    // budget table after a yield, as before, it runs 22,272 executions.
    // Finished threads drop out of the scheduler's state: with their bits
    // kept (who they were scheduled beside), it ran 14,715.
    assert_eq!((totals.icb, totals.cb_por), (293_509, 14_369));
}

/// bpor on the same spinning programs, with how long each spin lasted
/// left out of the outcome: it reaches every outcome ICB reaches, in
/// fewer executions than cb-por.
///
/// How long a spin lasts it does not always reach, as `dpor` does not:
/// under the fair scheduler a thread that yielded runs again only after
/// the others have stepped, so how often it spins depends on where its
/// yields fall among their steps, and the reductions treat a yield as
/// independent of the steps of other threads. Counted, 29 of the 100
/// spinning programs miss a spin's length at some bound (`dpor`, against
/// ICB at bound 2: 50): a measured gap pinned here, not a goal (making a
/// yield depend on every step of the others would close it at the price
/// of exploring where each yield falls).
#[test]
fn bpor_reaches_every_outcome_icb_reaches_in_programs_that_spin_but_how_long() {
    let quiet = |g: &mut Gen| Program::generate_spinning(g).quiet_spins();
    let totals = bounded_agree_with_icb_on(0x5917_1e55, 100, &[SearchStrategy::Bpor], quiet);
    assert_eq!((totals.icb, totals.bpor), (293_509, 8_258));
    let quiet_weak = |g: &mut Gen| Program::generate_spinning_weak(g).quiet_spins();
    let totals = bounded_agree_with_icb_on(0x5917_1e55, 100, &[SearchStrategy::Bpor], quiet_weak);
    assert_eq!((totals.icb, totals.bpor), (425_404, 12_572));
    // Counted: the programs where some bound misses a spin's length.
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x5917_1e55);
    let short = (0..100)
        .filter(|_| {
            let program = Program::generate_spinning(&mut g);
            (0..=2).any(|bound| {
                outcomes(&program, SearchStrategy::Bpor, bound).1 != outcomes(&program, SearchStrategy::Icb, bound).1
            })
        })
        .count();
    assert_eq!(short, 29);
}

/// The same under the C11 model, each access with its own ordering: a
/// spinning load may read an older store (until its thread yields, when
/// it reads the newest), so cb-por's names for weak loads and the fair
/// scheduler's state meet.
#[test]
fn cb_por_reaches_every_outcome_icb_reaches_in_weak_programs_that_spin() {
    let totals = bounded_agree_with_icb_on(0x5917_1e55, 100, &[SearchStrategy::CbPor], Program::generate_spinning_weak);
    // 16,978 with finished threads' bits kept in the scheduler's state.
    assert_eq!((totals.icb, totals.cb_por), (425_404, 16_464));
}

/// Programs that wait on condition variables (with a timeout, so every
/// one ends), notify, sleep, send and receive: the steps whose dependency
/// is finer than "conflicts with everything" (a wait changes its condition
/// variable and the mutex it releases; a sleep and a timed wait touch the
/// virtual clock only). The fair scheduler is off: sleeps and timed waits
/// yield, and DPOR's completeness is argued without it.
#[test]
fn the_reductions_agree_on_programs_that_wait_sleep_and_send() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x0b10_c4ed);
    let (mut totals, mut dfs_total, mut checked) = (Totals::default(), 0u64, 0);
    for _ in 0..150 {
        let program = Program::generate_blocking(&mut g);
        let (dfs, expected) = outcomes_with(&program, SearchStrategy::Dfs, 0, false);
        assert!(!dfs.is_failure(), "{program:?}\n{dfs}");
        if !dfs.exhausted {
            // Too big for brute force in a test's time: left out.
            continue;
        }
        checked += 1;
        totals += reductions_agree(&program, &dfs, &expected, |s, b| outcomes_with(&program, s, b, false));
        dfs_total += dfs.executions;
    }
    eprintln!("{checked} programs: dfs {dfs_total} {totals:?}");
    assert!(checked >= 120, "only {checked} programs were small enough");
    assert!(totals.dpor * 3 < dfs_total, "dpor {} vs dfs {dfs_total}", totals.dpor);
    assert!(totals.cb_por * 2 < totals.icb && totals.bpor * 2 < totals.icb, "{totals:?}");
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
            for reduction in BOUNDED {
                let (por, got) = verdict(&program, *reduction, bound);
                assert_eq!(got, expected, "{} vs icb at bound {bound} on {program:?}\n{icb}\n{por}", por.strategy);
            }
        }
        match expected {
            Verdict::Race => races += 1,
            Verdict::Outcomes(_) => clean += 1,
        }
    }
    // Both kinds are well represented (fixed by the seed).
    assert_eq!((races, clean), (46, 154), "racy and clean programs");
}

/// What an exploration of a reader-writer/rendezvous program says: the
/// set of outcomes, or that some schedule deadlocks (a recursive read
/// behind a waiting writer).
#[derive(Debug, PartialEq, Eq)]
enum Blocking {
    Outcomes(BTreeSet<Vec<u32>>),
    Deadlock,
}

fn blocking_verdict(program: &Program, strategy: SearchStrategy, bound: u32) -> (Report, Blocking) {
    let (report, seen) = outcomes_with(program, strategy, bound, false);
    let verdict = match &report.outcome {
        Outcome::Pass => Blocking::Outcomes(seen),
        Outcome::Deadlock(_) => Blocking::Deadlock,
        _ => panic!("unexpected verdict for {program:?}:\n{report}"),
    };
    (report, verdict)
}

/// The choices a reader-writer lock and a rendezvous channel make depend
/// on what another thread has announced but not yet done (a writer
/// waiting, a receiver at its receive): on generated programs the
/// reductions reach the outcomes and the deadlocks brute force does.
#[test]
fn the_reductions_agree_on_rwlocks_and_rendezvous_channels() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x0042_7705);
    let (mut deadlocks, mut clean, mut checked) = (0, 0, 0);
    for _ in 0..150 {
        let program = Program::generate_rw(&mut g);
        let (dfs, expected) = blocking_verdict(&program, SearchStrategy::Dfs, 0);
        if expected != Blocking::Deadlock && !dfs.exhausted {
            // Too big for brute force in a test's time: left out.
            continue;
        }
        checked += 1;
        let (dpor, got) = blocking_verdict(&program, SearchStrategy::Dpor, 0);
        assert_eq!(got, expected, "dpor vs dfs on {program:?}\n{dfs}\n{dpor}");
        for bound in 0..=2 {
            let (icb, expected) = blocking_verdict(&program, SearchStrategy::Icb, bound);
            for reduction in BOUNDED {
                let (por, got) = blocking_verdict(&program, *reduction, bound);
                assert_eq!(got, expected, "{} vs icb at bound {bound} on {program:?}\n{icb}\n{por}", por.strategy);
            }
        }
        match expected {
            Blocking::Deadlock => deadlocks += 1,
            Blocking::Outcomes(_) => clean += 1,
        }
    }
    eprintln!("{checked} programs: {deadlocks} deadlock, {clean} do not");
    // Both kinds are well represented (fixed by the seed), and the 17 left
    // out were too big for brute force.
    assert_eq!((deadlocks, clean), (16, 117), "programs that deadlock and programs that do not");
}

/// [`outcomes`] for a reference-counting program.
fn ref_outcomes(program: &RefProgram, strategy: SearchStrategy, bound: u32) -> (Report, BTreeSet<Vec<u32>>) {
    let p = program.clone();
    collect(Builder::new().strategy(strategy).preemption_bound(bound).max_executions(DFS_CAP), move || p.run())
}

/// Programs whose threads clone, drop, count, unwrap, downgrade and
/// upgrade one `counted::Arc`: every operation on a count is a step, and
/// the outcome says who freed the value, so a reduction that treated two
/// count operations as independent when their order matters would miss
/// an outcome.
#[test]
fn the_reductions_agree_on_reference_counting_programs() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x00a2_c0de);
    let (mut dfs_total, mut totals, mut checked) = (0u64, Totals::default(), 0);
    for _ in 0..60 {
        let program = RefProgram::generate(&mut g);
        let (dfs, expected) = ref_outcomes(&program, SearchStrategy::Dfs, 0);
        assert!(!dfs.is_failure(), "{program:?}\n{dfs}");
        if !dfs.exhausted {
            // Too big for brute force in a test's time: left out.
            continue;
        }
        checked += 1;
        totals += reductions_agree(&program, &dfs, &expected, |s, b| ref_outcomes(&program, s, b));
        dfs_total += dfs.executions;
    }
    eprintln!("{checked} programs: dfs {dfs_total} {totals:?}");
    assert!(checked >= 45, "only {checked} programs were small enough");
    assert!(totals.dpor < dfs_total, "dpor {} vs dfs {dfs_total}", totals.dpor);
}

/// Programs whose test closure asks `is_finished` of the threads it
/// spawned between its own atomic accesses: the answer depends on
/// whether a thread's end came first, which is no step of the thread's
/// own, so the reductions must see it (as part of the thread's last step:
/// `Strategy::on_end`) to explore both orders.
#[test]
fn the_reductions_agree_on_programs_that_ask_whether_threads_finished() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x0f15_4ed0);
    let explore = |p: &FinProgram, strategy: SearchStrategy, bound: u32| {
        let p = p.clone();
        collect(Builder::new().strategy(strategy).preemption_bound(bound), move || p.run())
    };
    let (mut dfs_total, mut totals) = (0u64, Totals::default());
    let mut running_after_done = 0;
    for _ in 0..80 {
        let program = FinProgram::generate(&mut g);
        let (dfs, expected) = explore(&program, SearchStrategy::Dfs, 0);
        assert!(dfs.exhausted && !dfs.is_failure(), "{program:?}\n{dfs}");
        totals += reductions_agree(&program, &dfs, &expected, |s, b| explore(&program, s, b));
        dfs_total += dfs.executions;
        // A thread with nothing to do is done as soon as it is spawned: a
        // `false` about it is the answer std allows for a thread that is
        // done but has not yet let go of its result.
        let idle = program.threads.iter().all(Vec::is_empty);
        running_after_done += usize::from(idle && expected.iter().any(|o| o.contains(&10)));
    }
    eprintln!("dfs {dfs_total} {totals:?}; {running_after_done} idle");
    // Exact (the programs are fixed by the seed): the reductions run far
    // fewer executions, and 17 programs whose threads are idle still see
    // one reported running.
    let Totals { dpor, icb, cb_por, bpor } = totals;
    assert_eq!((dfs_total, dpor, icb, cb_por, bpor, running_after_done), (1197, 357, 1637, 1014, 891, 17));
}

/// Checks, for `program` under its orderings, that DFS passes exhaustively
/// reaching every outcome it reaches with SeqCst, that DPOR reaches DFS's
/// outcomes and cb-por ICB's at bounds 0 to 2; returns whether the
/// orderings reach an outcome SeqCst cannot.
fn the_reductions_agree_under(program: &Program) -> bool {
    let seq_cst = Program { orders: Orders::SeqCst, ..program.clone() };
    let (_, seq_cst) = outcomes(&seq_cst, SearchStrategy::Dfs, 0);
    let (dfs, expected) = outcomes(program, SearchStrategy::Dfs, 0);
    assert!(dfs.exhausted && !dfs.is_failure(), "{program:?}\n{dfs}");
    assert!(expected.is_superset(&seq_cst), "{program:?}");
    reductions_agree(program, &dfs, &expected, |s, b| outcomes(program, s, b));
    expected.len() > seq_cst.len()
}

/// Under the C11 model with `Relaxed` atomics, a load's choice of store is
/// a branching point: DPOR reaches the outcomes DFS reaches, and cb-por
/// those ICB reaches at each bound.
#[test]
fn the_reductions_reach_every_outcome_under_relaxed_atomics() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x00c1_1eed);
    let mut weaker = 0;
    for _ in 0..80 {
        let mut program = Program::generate(&mut g);
        program.orders = Orders::Relaxed;
        weaker += usize::from(the_reductions_agree_under(&program));
    }
    // Programs where Relaxed reaches outcomes SeqCst cannot: only one of
    // the 80 (most mix a single atomic with read-modify-writes), so this is
    // thin evidence for the choices of store; the weak-memory shapes below
    // (20 of 120) and the litmus tests of tests/weak_memory.rs are the
    // direct evidence.
    assert_eq!(weaker, 1);
}

#[test]
fn the_reductions_reach_every_outcome_in_weak_memory_shapes() {
    // Loads, stores and fences on two atomics, each access with its own
    // ordering: the shapes (SB, MP, IRIW, 2+2W) where a load's choice of
    // store and a store's place in the modification order decide the
    // outcome, so that DPOR's and cb-por's treatment of those choices is
    // checked against DFS's and ICB's, not only their interleavings.
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x5eed_0f3a);
    let mut weaker = 0;
    for _ in 0..120 {
        weaker += usize::from(the_reductions_agree_under(&Program::generate_weak(&mut g)));
    }
    // Programs whose orderings reach outcomes SeqCst cannot: 20 of 120
    // (the Relaxed-only generated programs above: 1 of 80).
    assert_eq!(weaker, 20);
}

/// Every kind of atomic access with its own ordering, compare-exchanges,
/// fences, a lock and cells ([`Program::generate_mixed`]): a weak load
/// commutes with the stores before it, a `SeqCst` access or fence with
/// neither, and the reductions still reach DFS's outcomes (DPOR) and
/// ICB's at bounds 0 to 2 (cb-por), each in fewer executions.
#[test]
fn the_reductions_agree_on_every_kind_of_atomic_access() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let programs: usize = std::env::var("REDUCTION_PROGRAMS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let mut g = Gen(std::env::var("REDUCTION_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or(0x3a11_5eed));
    let (mut dfs_total, mut totals, mut weaker) = (0u64, Totals::default(), 0);
    let mut races = 0;
    for _ in 0..programs {
        let program = Program::generate_mixed(&mut g);
        let seq_cst = Program { orders: Orders::SeqCst, ..program.clone() };
        let (_, seq_cst) = outcomes(&seq_cst, SearchStrategy::Dfs, 0);
        let (dfs, expected) = outcomes(&program, SearchStrategy::Dfs, 0);
        if dfs.is_failure() {
            // A data race on the cell: DPOR finds one too, and cb-por and
            // bpor do at each bound exactly when ICB does.
            races += 1;
            assert!(outcomes(&program, SearchStrategy::Dpor, 0).0.is_failure(), "dpor misses the race in {program:?}");
            for bound in 0..=2 {
                let icb = outcomes(&program, SearchStrategy::Icb, bound).0.is_failure();
                for reduction in BOUNDED {
                    let por = outcomes(&program, *reduction, bound).0.is_failure();
                    assert_eq!(icb, por, "bound {bound}: icb and {reduction:?} disagree on a race in {program:?}");
                }
            }
            continue;
        }
        assert!(dfs.exhausted, "{program:?}\n{dfs}");
        totals += reductions_agree(&program, &dfs, &expected, |s, b| outcomes(&program, s, b));
        weaker += usize::from(expected.len() > seq_cst.len());
        dfs_total += dfs.executions;
    }
    eprintln!("dfs {dfs_total} {totals:?}; {weaker} weaker than SeqCst, {races} races");
    if programs == 100 {
        // Exact (the programs are fixed by the seed): DPOR runs 0.17% of
        // DFS's executions, cb-por 7.5% of ICB's, bpor 0%.
        let Totals { dpor, icb, cb_por, bpor } = totals;
        assert_eq!((dfs_total, dpor, icb, cb_por, bpor, weaker, races), (796_996, 1_355, 65_795, 4_903, 6_771, 4, 5));
    }
}

/// The memory model defers what SeqCst-only accesses do to clocks until
/// something needs them (a load with a choice, a fence, a cell), and then
/// replays it in place: the same executions, outcomes and verdicts as
/// with the clocks live from the first spawn (which a cell touched before
/// any thread starts forces for the whole exploration).
#[test]
fn deferred_clocks_decide_as_live_clocks_do() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut g = Gen(0x1a2e_c10c);
    let mut programs: Vec<Program> = (0..60).map(|_| Program::generate_weak(&mut g)).collect();
    for i in 0..60 {
        let cells = 1 + g.below(2);
        let mut program = Program::generate_with(&mut g, cells);
        // Half SeqCst (deferred to the end, or to a cell), half Relaxed.
        if i % 2 == 1 {
            program.orders = Orders::Relaxed;
        }
        programs.push(program);
    }
    let (mut races, mut weak) = (0, 0);
    for program in &programs {
        let verdict = |eager: bool| {
            let p = program.clone();
            let builder = Builder::new().strategy(SearchStrategy::Dfs).max_executions(DFS_CAP);
            collect(builder, move || {
                if eager {
                    samaritan::cell::UnsafeCell::new(0u8).with(|_| ());
                }
                p.run()
            })
        };
        let ((lazy, lazy_outcomes), (eager, eager_outcomes)) = (verdict(false), verdict(true));
        // The cell that forces the clocks live takes number 0: the
        // program's cells are numbered one up.
        let unnumbered = |report: &Report| {
            let text = report.outcome.to_string();
            let (head, tail) = text.split_once('#').unwrap_or((&text, ""));
            format!("{head}#{}", tail.trim_start_matches(|c: char| c.is_ascii_digit()))
        };
        assert_eq!(
            (lazy.executions, unnumbered(&lazy), &lazy_outcomes),
            (eager.executions, unnumbered(&eager), &eager_outcomes),
            "{program:?}"
        );
        races += usize::from(matches!(lazy.outcome, Outcome::DataRace { .. }));
        weak += usize::from(program.orders != Orders::SeqCst);
    }
    // Races the deferred clocks must replay exactly to report (fixed by
    // the seed), and programs with orderings weaker than SeqCst (the 60
    // shapes and the 30 Relaxed ones).
    assert_eq!((races, weak), (21, 90));
}
