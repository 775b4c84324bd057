//! What a scheduling point offered, kept with a decision so that a replay
//! of the same prefix can tell that the program did something else.
//!
//! Invariant: two points with the same enabled actors announcing the same
//! operations on the same objects at the same places have equal
//! signatures; `places` leaves the objects out, so that a replay whose
//! threads do the same things at the same places on *other* objects (a
//! loop over a collection that came in another order) is told apart from
//! one that took another path.

use samaritan_sim::{ChoiceError, ChoicePoint, SchedulePoint};

/// Hashes of what a decision offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Signature {
    /// The enabled actors, their operations, objects and places.
    all: u64,
    /// The same without the objects.
    places: u64,
}

/// FNV-1a's step.
fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x0100_0000_01b3)
}

const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

impl Signature {
    /// What no decision offered: the start of a fold.
    pub(crate) const EMPTY: Signature = Signature { all: FNV_BASIS, places: FNV_BASIS };

    /// `self`, then `next`: what a sequence of decisions offered.
    pub(crate) fn then(self, next: Signature) -> Signature {
        Signature { all: mix(self.all, next.all), places: mix(self.places, next.places) }
    }

    /// The enabled actors' pending operations at `point`.
    pub(crate) fn of(point: &SchedulePoint<'_>) -> Signature {
        let (mut all, mut places) = (FNV_BASIS, FNV_BASIS);
        for &a in point.enabled {
            let p = point.pending(a).expect("an enabled actor has a pending operation");
            places = mix(mix(mix(places, a.index() as u64), p.op as u64), p.location as *const _ as u64);
            all = mix(mix(all, places), p.object.map_or(u64::MAX, |o| o.index() as u64));
        }
        Signature { all, places }
    }

    /// A data choice: its place and number of alternatives.
    pub(crate) fn of_value(point: &ChoicePoint<'_>) -> Signature {
        let h = point.location as *const _ as u64 ^ point.alternatives as u64;
        Signature { all: h, places: h }
    }

    /// Checks that a replayed decision offers what it offered before.
    pub(crate) fn replayed(self, now: Signature) -> Result<(), ChoiceError> {
        if self == now {
            Ok(())
        } else if self.places == now.places {
            Err(ChoiceError::OtherObjects)
        } else {
            Err(ChoiceError::Nondeterminism {
                detail: "replaying the same prefix, a thread announced a different operation than before".to_string(),
            })
        }
    }
}
