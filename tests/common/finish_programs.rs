//! Small generated programs that ask whether threads have finished: the
//! test closure spawns one or two threads of atomic loads and stores, and
//! mixes `JoinHandle::is_finished` with its own loads and stores. The
//! outcome is every register, `is_finished`'s answers included, so an
//! exploration that never runs a thread's end before (or after) an
//! `is_finished` misses an outcome.

use samaritan::sync::atomic::{AtomicU32, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

use super::programs::Gen;

/// One instruction; registers are per thread.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FinIns {
    /// `reg = atomic[a].load()`
    Load(usize),
    /// `atomic[a].store(k)`
    Store(usize, u32),
    /// `reg = handle[t].is_finished()` (the test closure only).
    IsFinished(usize),
}

/// A generated program: the test closure's instructions, then its
/// threads'.
#[derive(Clone, Debug)]
pub(crate) struct FinProgram {
    pub(crate) main: Vec<FinIns>,
    pub(crate) threads: Vec<Vec<FinIns>>,
}

impl FinProgram {
    /// At most 5 instructions in all, at least one `is_finished`.
    pub(crate) fn generate(g: &mut Gen) -> FinProgram {
        loop {
            let n = 1 + g.below(2);
            let access = |g: &mut Gen| match g.below(2) {
                0 => FinIns::Load(g.below(2)),
                _ => FinIns::Store(g.below(2), 1 + g.below(3) as u32),
            };
            let threads: Vec<Vec<FinIns>> = (0..n).map(|_| (0..g.below(3)).map(|_| access(g)).collect()).collect();
            let main: Vec<FinIns> = (0..1 + g.below(3))
                .map(|_| if g.below(2) == 0 { FinIns::IsFinished(g.below(n)) } else { access(g) })
                .collect();
            let size = main.len() + threads.iter().map(Vec::len).sum::<usize>();
            if size <= 5 && main.iter().any(|i| matches!(i, FinIns::IsFinished(_))) {
                return FinProgram { main, threads };
            }
        }
    }

    /// Runs the program once; returns its outcome.
    pub(crate) fn run(&self) -> Vec<u32> {
        let atomics: Arc<[AtomicU32; 2]> = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
        let handles: Vec<_> = self
            .threads
            .iter()
            .map(|body| {
                let (body, atomics) = (body.clone(), atomics.clone());
                thread::spawn(move || body.iter().map(|&ins| step(&atomics, ins, &[])).collect::<Vec<u32>>())
            })
            .collect();
        let mut outcome: Vec<u32> = self.main.iter().map(|&ins| step(&atomics, ins, &handles)).collect();
        for h in handles {
            outcome.extend(h.join().unwrap());
        }
        outcome
    }
}

/// Runs one instruction; returns its register (0 for a store).
fn step(atomics: &[AtomicU32; 2], ins: FinIns, handles: &[thread::JoinHandle<Vec<u32>>]) -> u32 {
    match ins {
        FinIns::Load(a) => atomics[a].load(Ordering::SeqCst),
        FinIns::Store(a, k) => {
            atomics[a].store(k, Ordering::SeqCst);
            0
        }
        FinIns::IsFinished(t) => u32::from(handles[t].is_finished()) + 10,
    }
}
