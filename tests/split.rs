//! Splitting a search: shards (`SAMARITAN_SHARD`, `Builder::shard`) that
//! together explore exactly what one search does, in-process workers
//! (`Builder::workers`), and the JSON report files `samaritan merge`
//! combines.
#![cfg(feature = "sim")]

mod common;

use common::models::{fetch_adds, lost_update, mutex_counter};

use samaritan::{Builder, Outcome, Report, SearchStrategy, Shard};
use samaritan_artifacts::json::{merge, Record};

fn builder(strategy: SearchStrategy) -> Builder {
    Builder::new().strategy(strategy).persist(false).progress(false)
}

fn shard(i: u32, n: u32) -> Shard {
    Shard::new(i, n).unwrap()
}

/// The reports of the `n` shards of `f`'s search.
fn shards(b: &Builder, n: u32, f: fn()) -> Vec<Report> {
    (1..=n).map(|i| b.clone().shard(shard(i, n)).explore(f).unwrap()).collect()
}

/// Asserts that `n` shards of `f`'s search all pass, exhaust their parts,
/// and count exactly the executions of the whole search, `whole`.
#[track_caller]
fn assert_shards_add_up(b: &Builder, f: fn(), whole: u64, n: u32) {
    let reports = shards(b, n, f);
    for r in &reports {
        assert_eq!((&r.outcome, r.exhausted), (&Outcome::Pass, true), "{r}");
    }
    let counts: Vec<u64> = reports.iter().map(|r| r.executions).collect();
    assert_eq!(counts.iter().sum::<u64>(), whole, "{n} shards: {counts:?}");
}

#[test]
fn dfs_shards_add_up_to_the_whole_search() {
    let b = builder(SearchStrategy::Dfs);
    let whole = b.explore(mutex_counter).unwrap();
    // Every order of the lock steps, spawns and joins (DPOR needs 90: one
    // per order of the critical sections, tests/dpor.rs).
    assert_eq!((whole.executions, whole.exhausted), (5791, true));
    for n in [2, 3, 7] {
        assert_shards_add_up(&b, mutex_counter, whole.executions, n);
    }
    let whole = b.explore(|| fetch_adds(3)).unwrap().executions;
    assert_shards_add_up(&b, || fetch_adds(3), whole, 4);
}

#[test]
fn icb_shards_add_up_to_the_whole_search_and_share_out_the_shallow_executions() {
    let b = builder(SearchStrategy::Icb).preemption_bound(2);
    let whole = b.explore(mutex_counter).unwrap();
    // As tests/cb_por.rs counts ICB at bound 2 on this model.
    assert_eq!((whole.executions, whole.completed_bound), (383, Some(2)));
    for n in [2, 3, 5] {
        assert_shards_add_up(&b, mutex_counter, whole.executions, n);
    }
    // Every shard runs the executions with fewer than 2 preemptions (whose
    // items of bound 2 the shards split); each counts in one shard.
    let below = builder(SearchStrategy::Icb).preemption_bound(1).explore(mutex_counter).unwrap().executions;
    let halves: Vec<Report> = shards(&b, 2, mutex_counter);
    assert_eq!(halves.iter().map(|r| r.elsewhere).sum::<u64>(), below);
}

#[test]
fn a_shard_says_which_part_it_covered() {
    let r = builder(SearchStrategy::Dfs).shard(shard(2, 3)).explore(mutex_counter).unwrap();
    let text = r.to_string();
    assert!(text.starts_with("pass: every execution explored: "), "{text}");
    assert!(text.ends_with(", no bug (strategy dfs, shard 2/3)"), "{text}");
    assert_eq!(r.shard, Some(shard(2, 3)));
}

#[test]
fn a_bug_is_found_by_the_shards_that_own_failing_executions_and_their_tokens_replay() {
    let b = builder(SearchStrategy::Dfs);
    assert!(b.explore(lost_update).unwrap().is_failure());
    let reports = shards(&b, 4, lost_update);
    let failing: Vec<usize> = (0..4).filter(|&i| reports[i].is_failure()).collect();
    assert!(!failing.is_empty(), "no shard found the lost update");
    for &i in &failing {
        let token = reports[i].token().unwrap();
        assert!(builder(SearchStrategy::Dfs).replay(token, lost_update).unwrap().is_failure());
        assert!(reports[i].to_string().contains(&format!("(strategy dfs, shard {}/4)", i + 1)));
    }
    // The same shards fail every time: each part is deterministic.
    let again: Vec<usize> = (0..4).filter(|&i| shards(&b, 4, lost_update)[i].is_failure()).collect();
    assert_eq!(again, failing);
}

#[test]
fn random_shards_draw_from_their_own_seeds_and_share_the_budget() {
    let b = builder(SearchStrategy::Random).seed(9).max_executions(10);
    let reports = shards(&b, 3, mutex_counter);
    let counts: Vec<u64> = reports.iter().map(|r| r.executions).collect();
    assert_eq!(counts, [4, 3, 3]);
    // The first shard is the unsharded search's seed.
    let one = builder(SearchStrategy::Random).seed(9).max_executions(4).explore(lost_update).unwrap();
    let first = b.clone().shard(shard(1, 3)).explore(lost_update).unwrap();
    assert_eq!((one.token(), one.executions), (first.token(), first.executions));
}

#[test]
fn workers_count_what_one_worker_counts() {
    for strategy in [SearchStrategy::Dfs, SearchStrategy::Icb] {
        let b = builder(strategy);
        let one = b.explore(mutex_counter).unwrap();
        let two = b.clone().workers(2).explore(mutex_counter).unwrap();
        assert_eq!((&two.outcome, two.executions, two.exhausted), (&Outcome::Pass, one.executions, true), "{two}");
        assert!(two.to_string().ends_with(&format!("no bug (strategy {}, 2 workers)", one.strategy)), "{two}");
        // Workers inside a shard split it further, still exactly.
        let halves: u64 =
            (1..=2).map(|i| b.clone().workers(2).shard(shard(i, 2)).explore(mutex_counter).unwrap().executions).sum();
        assert_eq!(halves, one.executions);
    }
}

#[test]
fn with_workers_the_failure_reported_does_not_depend_on_timing() {
    // DFS's workers steal work from each other: the failure of lowest
    // rank, the one a single worker finds first.
    let one = builder(SearchStrategy::Dfs).explore(lost_update).unwrap();
    let b = builder(SearchStrategy::Dfs).workers(3);
    let first = b.explore(lost_update).unwrap();
    assert!(first.is_failure(), "{first}");
    assert_eq!(first.token(), one.token());
    for _ in 0..3 {
        assert_eq!(b.explore(lost_update).unwrap().token(), first.token());
    }
    assert!(first.to_string().contains(", 3 workers)"), "{first}");
    // ICB's workers run fixed parts: the lowest-numbered failing worker's.
    // (Twenty times: a worker called off while it replayed its own failure
    // once made that failure read as nondeterminism, now and then.)
    let b = builder(SearchStrategy::Icb).workers(3);
    let first = b.explore(lost_update).unwrap();
    for _ in 0..20 {
        let again = b.explore(lost_update).unwrap();
        assert_eq!(again.token(), first.token(), "{first}\n{again}");
    }
}

#[test]
fn strategies_whose_space_cannot_be_cut_are_refused() {
    for (strategy, name) in [(SearchStrategy::RoundRobin, "round-robin"), (SearchStrategy::HapSet, "hapset")] {
        let err = builder(strategy).workers(2).explore(lost_update).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("strategy {name} cannot be split into shards or workers: use portfolio, icb, dfs, dpor, cb-por, bpor, random or pct (SAMARITAN_STRATEGY)")
        );
    }
    let err = builder(SearchStrategy::Dfs).workers(0).explore(lost_update).unwrap_err();
    assert_eq!(err.to_string(), "Builder::workers(0) is invalid: expected a number of workers from 1 to 256");
}

#[test]
fn shard_report_files_merge_into_one_verdict() {
    let dir = std::env::temp_dir().join(format!("samaritan-split-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let b = builder(SearchStrategy::Icb);
    let whole = b.explore(mutex_counter).unwrap().executions;
    let mut records = Vec::new();
    for i in 1..=3 {
        let file = dir.join(format!("shard-{i}.json"));
        b.clone().shard(shard(i, 3)).report_file(&file).explore(mutex_counter).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        records.extend(Record::parse_lines(&text).unwrap());
    }
    let merged = merge(&records);
    assert_eq!(merged.len(), 1);
    assert_eq!((merged[0].executions, merged[0].shards, merged[0].is_pass()), (whole, 3, true));
    assert!(merged[0]
        .to_string()
        .contains(&format!("pass: every execution with <= 2 preemptions explored: {whole} executions")));
    // A missing shard is never a pass.
    let partial = merge(&records[..2]);
    assert_eq!((partial[0].missing.clone(), partial[0].is_pass()), (vec![3], false));
    // A failing shard decides the verdict, with its replay command.
    let file = dir.join("bug.json");
    for i in 1..=2 {
        builder(SearchStrategy::Dfs).shard(shard(i, 2)).report_file(&file).explore(lost_update).unwrap();
    }
    let records = Record::parse_lines(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let merged = merge(&records);
    let (index, record) = merged[0].failure.clone().expect("a failing shard");
    assert_eq!(record.verdict, "fail");
    assert!(record.token.is_some() && record.replay.is_some());
    assert!(merged[0].to_string().contains(&format!("fail in shard {index}/2: ")), "{}", merged[0]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_default_portfolio_splits_too() {
    let b = Builder::new().persist(false).progress(false);
    let whole = b.explore(mutex_counter).unwrap();
    assert_eq!((&whole.outcome, whole.completed_bound), (&Outcome::Pass, Some(2)), "{whole}");
    let halves = shards(&b, 2, mutex_counter);
    for r in &halves {
        assert_eq!((&r.outcome, r.completed_bound, r.exhausted), (&Outcome::Pass, Some(2), true), "{r}");
    }
    // A state one shard explored is not pruned in the other: together they
    // run at least the systematic executions of the whole search.
    let systematic = |r: &Report| r.executions - r.randomized;
    assert!(halves.iter().map(systematic).sum::<u64>() >= systematic(&whole));
    // A bug is found by some shard, and its token replays it.
    let found: Vec<Report> = shards(&b, 2, lost_update).into_iter().filter(Report::is_failure).collect();
    assert!(!found.is_empty());
    assert!(b.replay(found[0].token().unwrap(), lost_update).unwrap().is_failure());
    // Workers share each bound's systematic search by work stealing, move
    // up a bound together, and complete the same bound.
    for workers in [2, 3] {
        let team = b.clone().workers(workers).explore(mutex_counter).unwrap();
        assert_eq!((&team.outcome, team.completed_bound, team.exhausted), (&Outcome::Pass, Some(2), true), "{team}");
        assert!(systematic(&team) >= systematic(&whole), "{team}");
        let found = b.clone().workers(workers).explore(lost_update).unwrap();
        assert!(found.is_failure(), "{found}");
        assert!(b.replay(found.token().unwrap(), lost_update).unwrap().is_failure());
    }
}

#[test]
fn a_worker_waiting_for_work_is_not_taken_for_a_blocked_one() {
    // One execution, long and without a decision: the first worker runs
    // it, the second waits for work longer than the watchdog allows a
    // silence. It is the other worker's steps that make progress.
    let long = || {
        let a = samaritan::sync::atomic::AtomicUsize::new(0);
        for _ in 0..1_000_000 {
            a.load(samaritan::sync::atomic::Ordering::SeqCst);
        }
    };
    for strategy in [SearchStrategy::Dfs, SearchStrategy::Dpor, SearchStrategy::CbPor, SearchStrategy::Portfolio] {
        let b = builder(strategy).workers(2).max_steps(2_000_000).watchdog(std::time::Duration::from_millis(100));
        let report = b.explore(long).unwrap();
        let systematic = report.executions - report.randomized;
        assert_eq!((&report.outcome, systematic, report.exhausted), (&Outcome::Pass, 1, true), "{report}");
    }
}

#[test]
fn dpor_workers_find_a_bug_whose_token_replays() {
    let one = builder(SearchStrategy::Dpor).explore(lost_update).unwrap();
    let two = builder(SearchStrategy::Dpor).workers(2).explore(lost_update).unwrap();
    assert!(one.is_failure() && two.is_failure(), "{one}\n{two}");
    assert_eq!(two.outcome.to_string(), one.outcome.to_string());
    let token = two.token().unwrap();
    assert!(builder(SearchStrategy::Dpor).replay(token, lost_update).unwrap().is_failure());
    // A pass counts about what one search counts (more when two workers
    // find the same backtrack point): here exactly.
    let one = builder(SearchStrategy::Dpor).explore(mutex_counter).unwrap();
    let two = builder(SearchStrategy::Dpor).workers(2).explore(mutex_counter).unwrap();
    assert_eq!((one.executions, &two.outcome, two.exhausted), (90, &Outcome::Pass, true), "{two}");
    assert!((90..=100).contains(&two.executions), "{two}");
}

#[test]
fn a_stalled_worker_calls_off_the_workers_waiting_for_its_work() {
    // The first worker blocks outside the engine's sight in its first
    // execution; the second waits for work the first will never give.
    // The watchdog's verdict calls the search off, waiting worker included.
    for strategy in [SearchStrategy::Dfs, SearchStrategy::Dpor, SearchStrategy::CbPor, SearchStrategy::Portfolio] {
        let b = builder(strategy).workers(2).watchdog(std::time::Duration::from_millis(100));
        let report = b.explore(|| std::thread::sleep(std::time::Duration::from_secs(2))).unwrap();
        assert!(matches!(report.outcome, Outcome::UncontrolledBlocking { .. }), "{report}");
    }
}
