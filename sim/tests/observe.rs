//! The strategy API seen from outside: a strategy that observes steps sees
//! every step, forced ones included, and is asked only at real choices.

use std::panic::Location;
use std::sync::{Arc, Mutex};

use samaritan_sim::{
    explore, rt, ActorId, ChoiceError, ChoicePoint, Config, Op, Outcome, SchedulePoint, Step, Strategy,
};

/// Picks the lowest enabled actor and records what it sees.
#[derive(Default)]
struct Recorder {
    started: bool,
    seen: Arc<Mutex<Vec<(u64, String)>>>,
    choices: Arc<Mutex<usize>>,
}

impl Strategy for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }

    fn begin_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        assert!(point.enabled.len() >= 2, "asked without a choice");
        *self.choices.lock().unwrap() += 1;
        Ok(point.enabled[0])
    }

    fn choose_value(&mut self, _point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        Ok(0)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {}

    fn observes_steps(&self) -> bool {
        true
    }

    fn on_step(&mut self, step: &Step) {
        let name = format!("{}:{}", step.actor.index(), step.pending.op);
        self.seen.lock().unwrap().push((step.index, name));
    }
}

#[test]
fn every_step_is_observed_and_only_choices_are_asked() {
    let recorder = Recorder::default();
    let (seen, choices) = (recorder.seen.clone(), recorder.choices.clone());
    let report = explore(
        Config::default(),
        Box::new(recorder),
        Arc::new(|| {
            let here = Location::caller();
            rt::step(Op::Yield, None, here);
            rt::spawn(None, None, here, Box::new(move || rt::step(Op::Fence, None, here))).unwrap();
            rt::step(Op::Yield, None, here);
        }),
    );
    assert_eq!(report.outcome, Outcome::Pass);
    // main: yield (forced), spawn (forced); then main's yield and t1's fence
    // are both enabled: one choice, main (0) first, then t1 forced.
    let seen = seen.lock().unwrap().clone();
    let expected: Vec<(u64, String)> = ["0:yield", "0:spawn", "0:yield", "1:fence"]
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u64, s.to_string()))
        .collect();
    assert_eq!(seen, expected);
    assert_eq!(*choices.lock().unwrap(), 1);
}
