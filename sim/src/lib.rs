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
//!   for its own time budget and watchdog.
//! - The token format and the trace format are versioned API
//!   ([`TOKEN_VERSION`]).

mod actor;
mod execution;
mod explore;
mod fair;
mod liveness;
mod minimize;
mod op;
mod outcome;
mod panics;
mod race;
mod run;
mod schedule;
mod strategy;
mod trace;
mod trace_parse;
mod worker;

pub mod rt;

pub use explore::{explore, replay, Body, Config, Failure, Report};
pub use minimize::{Shrink, Size};
pub use op::{Access, ActorId, Footprint, ObjectId, Op};
pub use outcome::{BlockedActor, CycleStep, Deadlock, Outcome, RaceAccess};
pub use schedule::{Replay, Schedule, TokenError, TOKEN_VERSION};
pub use strategy::{ActorView, ChoiceError, ChoicePoint, Pending, SchedulePoint, Step, Strategy};
pub use trace::{Trace, TraceLine, TRACE_VERSION};
pub use trace_parse::TraceError;
