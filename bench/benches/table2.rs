//! The fair stateless model checking paper's Table 2 (section 4.2.1), dining
//! philosophers rows: distinct states each search strategy reaches with the
//! fair scheduler and without it at depth bounds 20 to 60, next to the
//! paper's numbers. Run with
//! `cargo bench -p samaritan-bench --features sim --bench table2`; see
//! `BENCHMARKS.md`, section "Fair paper, Table 2".
//!
//! Without `--bench` (as `cargo test --all-targets --features sim` starts
//! it) the binary makes a quick pass over the 2-philosopher rows only.
//!
//! Environment: `BENCH_TABLE2_SECONDS` (time cap of one cell, default 20).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use samaritan::sync::Mutex;
use samaritan::{thread, Builder, Outcome, SearchStrategy};

/// Depth bounds of the runs without fairness, as in the paper.
const DEPTHS: [u64; 5] = [20, 30, 40, 50, 60];

/// Where a philosopher is in its loop: its program counter, part of the
/// abstract state.
mod pc {
    /// About to take its first fork (also after a yield).
    pub(crate) const THINKING: u8 = 0;
    /// Holds its first fork, about to try the second.
    pub(crate) const HOLDS_FIRST: u8 = 1;
    /// Holds both forks, about to put the second down.
    pub(crate) const EATING: u8 = 2;
    /// Failed to take the second fork, about to put the first down.
    pub(crate) const REFUSED: u8 = 3;
    /// Has eaten and put the second fork down, about to put the first down.
    pub(crate) const ATE: u8 = 4;
    /// Has eaten and put both forks down: finished.
    pub(crate) const DONE: u8 = 5;
    /// Put the first fork down after a refusal, about to yield.
    pub(crate) const BACKED_OFF: u8 = 6;
}

/// One execution's table: the forks and the bookkeeping that names the
/// abstract state. The bookkeeping is plain std atomics, invisible to the
/// engine; only one simulated thread runs at a time, so it is consistent
/// whenever a thread reads it.
struct Table {
    forks: Vec<Mutex<()>>,
    /// Per fork: 0 when free, else the holder's index + 1.
    holder: Vec<AtomicU8>,
    /// Per philosopher: its [`pc`].
    pc: Vec<AtomicU8>,
    /// Model operations (lock, try_lock, unlock, yield) done so far.
    ops: AtomicU64,
    /// The model-side depth bound: a philosopher back at the top of its
    /// loop (holding nothing) after this many operations stops.
    depth: Option<u64>,
}

impl Table {
    fn new(n: usize, depth: Option<u64>) -> Table {
        Table {
            forks: (0..n).map(|_| Mutex::new(())).collect(),
            holder: (0..n).map(|_| AtomicU8::new(0)).collect(),
            pc: (0..n).map(|_| AtomicU8::new(pc::THINKING)).collect(),
            ops: AtomicU64::new(0),
            depth,
        }
    }

    /// Names the current abstract state: every philosopher's program
    /// counter (3 bits each) and every fork's holder (2 bits each), packed.
    fn name_state(&self) {
        let mut state = 0u64;
        for p in &self.pc {
            state = state << 3 | u64::from(p.load(Relaxed));
        }
        for h in &self.holder {
            state = state << 2 | u64::from(h.load(Relaxed));
        }
        samaritan::coverage::state(state);
    }

    /// Records that philosopher `me` finished an operation that took it to
    /// `pc` and, if given, set fork `f`'s holder to `h`; names the state.
    fn did(&self, me: usize, pc: u8, fork: Option<(usize, u8)>) {
        self.ops.fetch_add(1, Relaxed);
        self.pc[me].store(pc, Relaxed);
        if let Some((f, h)) = fork {
            self.holder[f].store(h, Relaxed);
        }
        self.name_state();
    }

    /// Returns whether the model-side depth bound has been reached.
    fn cut(&self) -> bool {
        self.depth.is_some_and(|d| self.ops.load(Relaxed) >= d)
    }
}

/// `n` philosophers, each needing forks `i` and `(i + 1) % n` and taking the
/// lower-numbered one first (so every run terminates under a fair
/// scheduler): `loop { lock(first); if try_lock(second) { eat; put both
/// down; done } else { put first down; yield } }`.
fn philosophers(n: usize, depth: Option<u64>) {
    let table = Arc::new(Table::new(n, depth));
    table.name_state();
    let handles: Vec<_> = (0..n)
        .map(|me| {
            let t = table.clone();
            thread::spawn(move || {
                let (a, b) = (me, (me + 1) % n);
                let (first, second) = (a.min(b), a.max(b));
                let mine = me as u8 + 1;
                loop {
                    if t.cut() {
                        return;
                    }
                    let held = t.forks[first].lock().unwrap();
                    t.did(me, pc::HOLDS_FIRST, Some((first, mine)));
                    match t.forks[second].try_lock() {
                        Ok(both) => {
                            t.did(me, pc::EATING, Some((second, mine)));
                            drop(both);
                            t.did(me, pc::ATE, Some((second, 0)));
                            drop(held);
                            t.did(me, pc::DONE, Some((first, 0)));
                            return;
                        }
                        Err(_) => {
                            t.did(me, pc::REFUSED, None);
                            drop(held);
                            t.did(me, pc::BACKED_OFF, Some((first, 0)));
                            thread::yield_now();
                            t.did(me, pc::THINKING, None);
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// Counts the states reachable in the model by a stateful breadth-first
/// search over (program counters, fork holders), which is the whole state
/// of the model: the "total states" with no preemption bound. Uses the same
/// packing as [`Table::name_state`].
fn reachable_states(n: usize) -> usize {
    let pack = |pcs: &[u8], holders: &[u8]| {
        let s = pcs.iter().fold(0u64, |s, &p| s << 3 | u64::from(p));
        holders.iter().fold(s, |s, &h| s << 2 | u64::from(h))
    };
    let start = (vec![pc::THINKING; n], vec![0u8; n]);
    let mut seen = std::collections::HashSet::from([pack(&start.0, &start.1)]);
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some((pcs, holders)) = queue.pop_front() {
        for me in 0..n {
            let (a, b) = (me, (me + 1) % n);
            let (first, second) = (a.min(b), a.max(b));
            let mine = me as u8 + 1;
            let (mut pcs, mut holders) = (pcs.clone(), holders.clone());
            match pcs[me] {
                pc::THINKING if holders[first] == 0 => (pcs[me], holders[first]) = (pc::HOLDS_FIRST, mine),
                pc::HOLDS_FIRST if holders[second] == 0 => (pcs[me], holders[second]) = (pc::EATING, mine),
                pc::HOLDS_FIRST => pcs[me] = pc::REFUSED,
                pc::EATING => (pcs[me], holders[second]) = (pc::ATE, 0),
                pc::ATE => (pcs[me], holders[first]) = (pc::DONE, 0),
                pc::REFUSED => (pcs[me], holders[first]) = (pc::BACKED_OFF, 0),
                pc::BACKED_OFF => pcs[me] = pc::THINKING,
                _ => continue, // blocked on its first fork, or done
            }
            if seen.insert(pack(&pcs, &holders)) {
                queue.push_back((pcs, holders));
            }
        }
    }
    seen.len()
}

/// A search strategy of the table's rows.
#[derive(Clone, Copy, Debug)]
enum Strategy {
    /// Iterative context bounding up to this many preemptions.
    Cb(u32),
    /// Depth-first search without a preemption bound.
    Dfs,
}

impl Strategy {
    fn label(self) -> String {
        match self {
            Strategy::Cb(c) => format!("cb={c}"),
            Strategy::Dfs => "dfs".to_string(),
        }
    }
}

/// How a cell's run treats fairness and depth.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// The fair scheduler, step bound 100000.
    Fair,
    /// No fairness, engine step bound `db`: the first execution cut at the
    /// bound ends the search (a `StepBound` verdict is a failure).
    StepBound(u64),
    /// No fairness; the model stops after `db` of its operations (each
    /// philosopher at the top of its loop), so the execution ends as a pass
    /// and the search goes on.
    ModelDepth(u64),
}

/// One cell's result.
#[derive(Clone, Copy, Debug)]
struct Cell {
    states: u64,
    executions: u64,
    time: Duration,
    /// Stopped by the time cap or by a step-bound verdict: the paper's `*`.
    partial: bool,
}

impl Cell {
    fn states(&self) -> String {
        format!("{}{}", self.states, if self.partial { "*" } else { "" })
    }

    fn cost(&self) -> String {
        format!("{} ex {:.2}s", self.executions, self.time.as_secs_f64())
    }
}

/// Explores `n` philosophers under `strategy` and `mode`, for at most `cap`.
fn run(n: usize, strategy: Strategy, mode: Mode, cap: Duration) -> Cell {
    let builder = Builder::new().max_time(cap);
    let builder = match strategy {
        Strategy::Cb(c) => builder.strategy(SearchStrategy::Icb).preemption_bound(c),
        Strategy::Dfs => builder.strategy(SearchStrategy::Dfs),
    };
    let (builder, depth) = match mode {
        Mode::Fair => (builder.fairness(true).max_steps(100_000), None),
        Mode::StepBound(db) => (builder.fairness(false).max_steps(db), None),
        Mode::ModelDepth(db) => (builder.fairness(false).max_steps(100_000), Some(db)),
    };
    let start = Instant::now();
    let report = builder.explore(move || philosophers(n, depth)).expect("samaritan: bad configuration");
    let time = start.elapsed();
    let cut = match (&report.outcome, mode) {
        (Outcome::Pass, _) => false,
        (Outcome::StepBound { .. }, Mode::StepBound(_)) => true,
        (other, _) => {
            panic!("{n} philosophers, {strategy:?}, {mode:?}: unexpected verdict {}:\n{report}", other.kind())
        }
    };
    Cell { states: report.states.unwrap_or(0), executions: report.executions, time, partial: cut || !report.exhausted }
}

/// The paper's rows for one configuration: per strategy, the total states,
/// the states with fairness, then without fairness at db = 20..60.
type Paper = [(Strategy, &'static str, &'static str, [&'static str; 5]); 4];

const PAPER_2: Paper = [
    (Strategy::Cb(1), "27", "27", ["27"; 5]),
    (Strategy::Cb(2), "28", "28", ["28"; 5]),
    (Strategy::Cb(3), "29", "29", ["29"; 5]),
    (Strategy::Dfs, "29", "29", ["29"; 5]),
];

const PAPER_3: Paper = [
    (Strategy::Cb(1), "102", "102", ["102"; 5]),
    (Strategy::Cb(2), "144", "144", ["143", "144", "144", "144", "144"]),
    (Strategy::Cb(3), "167", "171", ["167", "169", "169", "169", "169"]),
    (Strategy::Dfs, "177", "177", ["174", "177", "177", "168*", "139*"]),
];

/// Prints rows as a Markdown table, columns padded.
fn print_table(header: &[String], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        println!("| {} |", padded.join(" | "));
    };
    line(header);
    line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for row in rows {
        line(row);
    }
}

fn configuration(n: usize, paper: &Paper, cap: Duration) {
    println!();
    println!(
        "Dining philosophers, {n} philosophers (time cap {} s per cell); {} states reachable (stateful search)",
        cap.as_secs_f64(),
        reachable_states(n)
    );
    println!();
    let mut header = vec!["strategy".to_string(), "row".to_string(), "fair".to_string()];
    header.extend(DEPTHS.iter().map(|d| format!("db={d}")));
    let mut states = Vec::new();
    let mut costs = Vec::new();
    for &(strategy, total, fair, without) in paper {
        let label = strategy.label();
        let mut row = vec![label.clone(), format!("paper (total {total})"), fair.to_string()];
        row.extend(without.iter().map(|s| s.to_string()));
        states.push(row);
        let fair = run(n, strategy, Mode::Fair, cap);
        let depth: Vec<Cell> = DEPTHS.iter().map(|&d| run(n, strategy, Mode::ModelDepth(d), cap)).collect();
        let bound: Vec<Cell> = DEPTHS.iter().map(|&d| run(n, strategy, Mode::StepBound(d), cap)).collect();
        for (name, cells) in [("ours, model depth bound", &depth), ("ours, max_steps(db)", &bound)] {
            let mut row = vec![label.clone(), name.to_string(), fair.states()];
            row.extend(cells.iter().map(Cell::states));
            states.push(row);
            let mut row = vec![label.clone(), name.to_string(), fair.cost()];
            row.extend(cells.iter().map(Cell::cost));
            costs.push(row);
        }
    }
    println!("distinct states (* = stopped by the time cap or a step-bound verdict):");
    println!();
    print_table(&header, &states);
    println!();
    println!("executions and time per cell:");
    println!();
    print_table(&header, &costs);
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let started = Instant::now();
    if full {
        let seconds = std::env::var("BENCH_TABLE2_SECONDS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(20.0);
        let cap = Duration::from_secs_f64(seconds);
        println!("fair stateless model checking, Table 2, dining philosophers rows");
        configuration(2, &PAPER_2, cap);
        configuration(3, &PAPER_3, cap);
    } else {
        println!("quick pass (no --bench): 2 philosophers, and 3 with cb=1 at db=20 only");
        let cap = Duration::from_millis(200);
        configuration(2, &PAPER_2, cap);
        let cells = [Mode::Fair, Mode::ModelDepth(20), Mode::StepBound(20)].map(|m| run(3, Strategy::Cb(1), m, cap));
        println!();
        println!(
            "3 philosophers, cb=1, states (fair, model depth 20, max_steps(20)): {} {} {} of {} reachable",
            cells[0].states(),
            cells[1].states(),
            cells[2].states(),
            reachable_states(3)
        );
    }
    println!();
    println!("table2 time: {:.1} s", started.elapsed().as_secs_f64());
}
