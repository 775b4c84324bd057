//! The deterministic engine of samaritan.
//!
//! An *execution* runs a test body with every simulated thread (an *actor*)
//! on its own stackful coroutine, all on one OS thread. Before each visible
//! operation an actor announces it ([`rt::step`]); the engine then asks a
//! [`Strategy`] which enabled actor takes the next step and switches to it.
//! The *explorer* ([`explore`]) runs execution after execution until the
//! strategy has covered its space or a failure is found, and reports the
//! failure with a readable trace and a replay token ([`Schedule`]).
//!
//! Architecture invariants:
//! - This crate names no concrete primitive: it sees actors, objects
//!   ([`ObjectId`], labelled by the primitive) and operations ([`Op`]).
//! - Under an execution nothing here reads wall-clock time or OS
//!   randomness on behalf of the program; the explorer reads the clock only
//!   for its own time budget and watchdog. The program's own reads of std's
//!   clocks see the real time plus the virtual clock's jumps (`wall_clock`).
//! - The token format and the trace format are versioned API
//!   ([`TOKEN_VERSION`]).

mod actor;
mod alloc;
mod arena;
mod config;
mod execution;
mod explain;
mod explore;
mod fair;
mod leak;
mod liveness;
mod memory;
mod minimize;
mod object;
mod objects;
mod op;
mod outcome;
mod outside;
mod overflow;
mod panics;
mod parallel;
mod progress;
mod race;
mod report;
mod run;
mod schedule;
mod search;
mod shard;
mod statics;
mod strategy;
mod symbols;
mod test_statics;
mod throttle;
mod timers;
mod trace;
mod trace_parse;
mod wall_clock;
mod worker;

pub mod rt;

pub use alloc::{NoReuse, HELD_CAP};
pub use config::{Body, Config, MemoryModel, MAX_STEPS};
pub use explore::{explore, replay, replay_against};
pub use op::{Access, ActorId, Footprint, ObjectId, Op};
pub use outcome::{BlockedActor, CycleStep, Deadlock, Outcome, RaceAccess};
pub use parallel::explore_parallel;
pub use report::{Budget, Failure, Report, Shrink, Size};
pub use schedule::{Replay, Schedule, TokenError, TOKEN_VERSION};
pub use shard::{Shard, ShardError, MAX_SHARDS};
pub use strategy::{ActorView, ChoiceError, ChoicePoint, Pending, SchedulePoint, Step, Strategy};
pub use trace::{ReadFrom, Trace, TraceLine, TRACE_VERSION};
pub use trace_parse::TraceError;
pub use wall_clock::STD_CLOCKS_FOLLOW;

#[cfg(test)]
mod architecture {
    use std::collections::{BTreeMap, BTreeSet};

    /// The modules of this crate and the ones each names (`crate::x`
    /// outside comments).
    fn imports() -> BTreeMap<String, BTreeSet<String>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut graph = BTreeMap::new();
        for entry in std::fs::read_dir(dir).expect("the source folder") {
            let path = entry.expect("an entry").path();
            let module = path.file_stem().expect("a file name").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).expect("a source file");
            let mut named = BTreeSet::new();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for (at, _) in line.match_indices("crate::") {
                    let rest = &line[at + "crate::".len()..];
                    let name: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                    if !name.is_empty() && name != module {
                        named.insert(name);
                    }
                }
            }
            graph.insert(module, named);
        }
        graph
    }

    /// Modules import in one direction (STYLE.md): no module reaches
    /// itself through the modules it names.
    #[test]
    fn the_module_graph_has_no_cycle() {
        let graph = imports();
        assert!(graph.len() > 20, "{graph:?}");
        for start in graph.keys() {
            let mut stack: Vec<&String> = graph[start].iter().collect();
            let mut seen = BTreeSet::new();
            while let Some(m) = stack.pop() {
                assert_ne!(m, start, "{start} reaches itself through the modules it imports");
                if seen.insert(m) {
                    stack.extend(graph.get(m).into_iter().flatten());
                }
            }
        }
    }
}
