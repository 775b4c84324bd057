//! Outcome sets of small programs under the C11 memory model, each
//! explored exhaustively by DFS and by DPOR, which must agree.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use samaritan::{Builder, MemoryModel, Outcome, SearchStrategy};

/// What an exhaustive exploration of a program saw.
#[derive(Debug)]
pub(crate) struct Outcomes {
    /// Every value the program returned, in some execution.
    pub(crate) set: BTreeSet<Vec<usize>>,
    /// DFS's executions.
    pub(crate) executions: u64,
    /// DPOR's executions (complete and cut short).
    pub(crate) dpor: u64,
}

fn explore<F>(model: MemoryModel, strategy: SearchStrategy, program: &Arc<F>) -> (BTreeSet<Vec<usize>>, u64)
where
    F: Fn() -> Vec<usize> + Send + Sync + 'static,
{
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let (s, p) = (seen.clone(), program.clone());
    let report = Builder::new()
        .strategy(strategy)
        .memory_model(model)
        .persist(false)
        .explore(move || {
            let got = p();
            s.lock().unwrap().insert(got);
        })
        .expect("valid settings");
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    let set = std::mem::take(&mut *seen.lock().unwrap());
    (set, report.executions)
}

/// Explores `program` with DFS and with DPOR (each to the end; the program
/// must pass) and returns the values it returned, which both must agree on.
#[track_caller]
pub(crate) fn outcomes<F>(program: F) -> Outcomes
where
    F: Fn() -> Vec<usize> + Send + Sync + 'static,
{
    outcomes_under(MemoryModel::Weak, program)
}

/// [`outcomes`] under memory model `model`.
#[track_caller]
pub(crate) fn outcomes_under<F>(model: MemoryModel, program: F) -> Outcomes
where
    F: Fn() -> Vec<usize> + Send + Sync + 'static,
{
    let program = Arc::new(program);
    let (set, executions) = explore(model, SearchStrategy::Dfs, &program);
    let (reduced, dpor) = explore(model, SearchStrategy::Dpor, &program);
    assert_eq!(reduced, set, "DPOR reaches other outcomes than DFS");
    Outcomes { set, executions, dpor }
}
