//! The fair demonic scheduler (fair-stateless-model-checking.txt, section 3,
//! Algorithm 1), as a filter on the enabled actors every strategy sees.
//!
//! The scheduler keeps a priority relation `P` over actors and, for every
//! actor `u`, three sets about `u`'s current *window* (the steps since its
//! last yield): `S(u)` who was scheduled, `E(u)` who stayed enabled the whole
//! time, `D(u)` whom `u` disabled. When `u` yields, it loses priority to
//! every actor in `H = (E(u) ∪ D(u)) \ S(u)`: those it kept waiting. An
//! actor is schedulable only when no actor it has lost priority to is
//! enabled (line 7).
//!
//! Invariants:
//! - `P` is acyclic (Theorem 3), so a non-empty enabled set never filters
//!   to an empty one: fairness never invents a deadlock.
//! - Sets of an actor that has not yielded yet are not tracked: the paper
//!   initialises them (`E = {}`, `D = S = Tid`) so that its first yield
//!   adds no edge and only opens its first window (lines 2-4), which is
//!   what `windowed` records.
//! - The update for a step (lines 13-29) needs the enabled set *after* it,
//!   which is known only at the next scheduling point: the step is held in
//!   `last` and settled there.

/// One bit per slot, `words` words per set.
type Word = u64;

/// No slot: the actor finished (or a slot with no actor).
const NONE: u32 = u32::MAX;

/// The state of Algorithm 1 for one execution.
///
/// The sets are laid out only once some actor yields (`tracking`): a
/// program that never yields pays for nothing but [`Fairness::scheduled`].
///
/// Sets hold *slots*, not actor indices: an actor takes a slot when it is
/// added and gives it back when it finishes, so the sets are as wide as
/// the most actors alive at once, not as the actors of the whole execution
/// (a test that spawns tasks in a loop has thousands, a few alive at a
/// time). A finished actor is never enabled again, so every bit about it is
/// dead: an edge into it filters nobody (line 7 asks about enabled actors
/// only), and in the sets of others it could only add such edges. Its slot
/// is cleared before reuse, so the filtering is the paper's exactly.
#[derive(Debug, Default)]
pub(crate) struct Fairness {
    /// Slots laid out, in use or free.
    slots: usize,
    /// Whether the sets below are laid out for `slots` (since the first
    /// yield of the execution).
    tracking: bool,
    /// Words per set.
    words: usize,
    /// Rows of `P`, `words` words each: row `t` holds every `u` with
    /// `(t, u)` in `P`.
    p: Vec<Word>,
    e: Vec<Word>,
    d: Vec<Word>,
    s: Vec<Word>,
    /// Slots whose actors have yielded at least once.
    windowed: Vec<Word>,
    any_windowed: bool,
    /// Whether `P` may hold an edge.
    edges: bool,
    /// The enabled set at the last scheduling point (`curr.ES`).
    before: Vec<Word>,
    /// The enabled set now (`next.ES`), filled by the caller.
    after: Vec<Word>,
    /// The step awaiting its update: the slot and whether it yielded.
    last: Option<(usize, bool)>,
    /// Each actor's slot, by actor index; [`NONE`] once it finished.
    slot_of: Vec<u32>,
    /// Each slot's actor index; [`NONE`] while free.
    actor_in: Vec<u32>,
    /// Cleared slots, ready for the next actor (the last freed first).
    free: Vec<u32>,
    /// Slots of actors that finished since the last settle: the step that
    /// finished them is settled first, then they are cleared.
    dying: Vec<u32>,
}

impl Fairness {
    /// Forgets the last execution, keeping the memory.
    pub(crate) fn reset(&mut self) {
        self.slots = 0;
        self.tracking = false;
        self.any_windowed = false;
        self.edges = false;
        self.last = None;
        self.slot_of.clear();
        self.actor_in.clear();
        self.free.clear();
        self.dying.clear();
    }

    /// Counts actor `index`, the next one, with empty sets: in a freed
    /// slot if there is one.
    #[inline]
    pub(crate) fn add_actor(&mut self, index: usize) {
        debug_assert_eq!(index, self.slot_of.len(), "actors are added in index order");
        if let Some(slot) = self.free.pop() {
            self.slot_of.push(slot);
            self.actor_in[slot as usize] = index as u32;
            return;
        }
        self.slot_of.push(self.slots as u32);
        self.actor_in.push(index as u32);
        self.slots += 1;
        if self.tracking {
            self.lay_out();
        }
    }

    /// Actor `index` finished: its slot is cleared and freed at the next
    /// settle (at once while nothing is tracked).
    #[inline]
    pub(crate) fn finish_actor(&mut self, index: usize) {
        let slot = std::mem::replace(&mut self.slot_of[index], NONE);
        debug_assert_ne!(slot, NONE, "an actor finishes once");
        if self.tracking {
            self.dying.push(slot);
        } else {
            self.actor_in[slot as usize] = NONE;
            self.free.push(slot);
        }
    }

    /// The slot of live actor `index`.
    #[inline]
    fn slot(&self, index: usize) -> usize {
        let slot = self.slot_of[index];
        debug_assert_ne!(slot, NONE, "a finished actor takes no step");
        slot as usize
    }

    /// Lays the sets out, empty, for every slot: when tracking starts, and
    /// when a slot is added after that (the new rows and any extra word
    /// start empty; existing bits are kept).
    #[cold]
    fn lay_out(&mut self) {
        let words = self.slots.div_ceil(64).max(1);
        let fresh = !self.tracking;
        if fresh || words != self.words {
            let keep = if fresh { 0 } else { self.words };
            for rows in [&mut self.p, &mut self.e, &mut self.d, &mut self.s] {
                if fresh {
                    // Keeps the allocation of the last execution.
                    rows.clear();
                    rows.resize(self.slots * words, 0);
                    continue;
                }
                let old = std::mem::take(rows);
                rows.resize(self.slots * words, 0);
                for r in 0..(old.len() / keep).min(self.slots) {
                    rows[r * words..r * words + keep].copy_from_slice(&old[r * keep..r * keep + keep]);
                }
            }
            for set in [&mut self.windowed, &mut self.before, &mut self.after] {
                if fresh {
                    set.clear();
                }
                set.resize(words, 0);
            }
            self.words = words;
        } else {
            for rows in [&mut self.p, &mut self.e, &mut self.d, &mut self.s] {
                rows.resize(self.slots * words, 0);
            }
        }
        self.tracking = true;
    }

    /// Returns whether the scheduler tracks this execution: since its
    /// first yield. Until then it has nothing to do: the caller skips the
    /// enabled set ([`Fairness::clear_enabled`], `mark_enabled`, `settle`)
    /// and reports only yields ([`Fairness::scheduled`]), so a program that
    /// never yields costs what it costs without fairness.
    #[inline]
    pub(crate) fn tracking(&self) -> bool {
        self.tracking
    }

    /// Starts filling the enabled set of the current scheduling point.
    #[inline]
    pub(crate) fn clear_enabled(&mut self) {
        if self.words == 1 {
            self.after[0] = 0;
        } else {
            self.after.iter_mut().for_each(|w| *w = 0);
        }
    }

    /// Marks actor `index` enabled at the current scheduling point.
    #[inline]
    pub(crate) fn mark_enabled(&mut self, index: usize) {
        let slot = self.slot(index);
        self.after[slot / 64] |= 1 << (slot % 64);
    }

    /// Settles the last step now that the enabled set after it is known
    /// (Algorithm 1, lines 13-29), and makes that set `curr.ES` for the
    /// next step. The slots of actors that finished are cleared after.
    #[inline]
    pub(crate) fn settle(&mut self) {
        if let Some((t, yielded)) = self.last.take() {
            if self.edges || self.any_windowed || yielded {
                self.update(t, yielded);
            }
        }
        if !self.dying.is_empty() {
            self.bury();
        }
        std::mem::swap(&mut self.before, &mut self.after);
    }

    /// Clears the slots of the actors that finished, row and column, and
    /// frees them.
    #[cold]
    fn bury(&mut self) {
        let w = self.words;
        for slot in std::mem::take(&mut self.dying) {
            let x = slot as usize;
            let (xw, xb) = (x / 64, 1 << (x % 64));
            for rows in [&mut self.p, &mut self.e, &mut self.d, &mut self.s] {
                rows[x * w..x * w + w].iter_mut().for_each(|word| *word = 0);
                rows.chunks_exact_mut(w).for_each(|row| row[xw] &= !xb);
            }
            for set in [&mut self.windowed, &mut self.before, &mut self.after] {
                set[xw] &= !xb;
            }
            self.actor_in[x] = NONE;
            self.free.push(slot);
        }
        self.edges = self.p.iter().any(|&word| word != 0);
        self.any_windowed = self.windowed.iter().any(|&word| word != 0);
    }

    #[inline(never)]
    fn update(&mut self, t: usize, yielded: bool) {
        let w = self.words;
        let (tw, tb) = (t / 64, 1 << (t % 64));
        // Line 13: t regains priority over everyone: drop edges into t.
        if self.edges {
            let mut any = false;
            for row in self.p.chunks_exact_mut(w) {
                row[tw] &= !tb;
                any |= row.iter().any(|&x| x != 0);
            }
            self.edges = any;
        }
        // Lines 14-22, for the actors whose windows are open.
        if self.any_windowed {
            for u in (0..self.windowed.len()).flat_map(|i| bits(self.windowed[i]).map(move |b| i * 64 + b)) {
                let row = u * w..u * w + w;
                for (x, &now) in self.e[row.clone()].iter_mut().zip(&self.after) {
                    *x &= now;
                }
                if u == t {
                    for ((x, &was), &now) in self.d[row.clone()].iter_mut().zip(&self.before).zip(&self.after) {
                        *x |= was & !now;
                    }
                }
                self.s[row][tw] |= tb;
            }
        }
        if !yielded {
            return;
        }
        // Lines 23-29: t yielded; it loses priority to those it kept waiting.
        let row = t * w..t * w + w;
        if self.windowed[tw] & tb != 0 {
            let mut any = false;
            for i in row.clone() {
                let h = (self.e[i] | self.d[i]) & !self.s[i];
                self.p[i] |= h;
                any |= h != 0;
            }
            self.edges |= any;
        }
        self.e[row.clone()].copy_from_slice(&self.after);
        self.d[row.clone()].iter_mut().for_each(|x| *x = 0);
        self.s[row].iter_mut().for_each(|x| *x = 0);
        self.windowed[tw] |= tb;
        self.any_windowed = true;
    }

    /// Records that actor `t` takes the next step, and whether it is a
    /// yield; settled at the next scheduling point. Needed only while
    /// tracking or for a yield (which starts tracking).
    #[inline]
    pub(crate) fn scheduled(&mut self, t: usize, yielded: bool) {
        self.last = Some((self.slot(t), yielded));
        if yielded && !self.tracking {
            self.lay_out();
        }
    }

    /// Returns whether actor `x` may be scheduled: no actor it has lost
    /// priority to is enabled (line 7: `T = ES \ pre(P, ES)`). Call after
    /// [`Fairness::settle`], which made the current enabled set `before`.
    #[inline]
    pub(crate) fn allows(&self, x: usize) -> bool {
        if !self.edges {
            return true;
        }
        let x = self.slot(x);
        let row = &self.p[x * self.words..x * self.words + self.words];
        row.iter().zip(&self.before).all(|(&p, &es)| p & es == 0)
    }

    /// A digest of what decides the scheduler's filtering from here on:
    /// `P` and, for each actor whose window is open, its window's sets
    /// (`E`, `D`, `S`); 0 before the execution's first yield, when the
    /// scheduler filters nothing and never will until one. Two scheduling
    /// points with the same program state and digest let the same actors
    /// run at every step after them.
    ///
    /// It is told in actor indices, not slots (which depend on the order in
    /// which actors came and went), as a sum of one mixed word per fact
    /// (an open window, a member of a set, an edge), so it costs one mix
    /// per bit set and needs no sorting.
    pub(crate) fn digest(&self) -> u64 {
        if !self.tracking {
            return 0;
        }
        let w = self.words;
        let mut h: u64 = 0;
        let mut fact = |kind: u64, u: u32, v: u32| {
            h = h.wrapping_add(mix(mix(kind << 32 | u64::from(u)) ^ u64::from(v)));
        };
        for u in members(&self.windowed) {
            let actor = self.actor_in[u];
            fact(0, actor, 0);
            for (kind, set) in [(1, &self.e), (2, &self.d), (3, &self.s)] {
                for v in members(&set[u * w..u * w + w]) {
                    fact(kind, actor, self.actor_in[v]);
                }
            }
        }
        if self.edges {
            for (u, row) in self.p.chunks_exact(w).enumerate() {
                for v in members(row) {
                    fact(4, self.actor_in[u], self.actor_in[v]);
                }
            }
        }
        mix(h) | 1
    }

    /// Returns whether any priority edge exists.
    #[inline]
    pub(crate) fn has_edges(&self) -> bool {
        self.edges
    }
}

/// A 64-bit finalizer (splitmix64's): every input bit moves every output
/// bit.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The slots in the set `row`, ascending.
fn members(row: &[Word]) -> impl Iterator<Item = usize> + '_ {
    row.iter().enumerate().flat_map(|(i, &word)| bits(word).map(move |b| i * 64 + b))
}

/// The indices of the set bits of `word`, ascending.
fn bits(mut word: Word) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let b = word.trailing_zeros() as usize;
            word &= word - 1;
            b
        })
    })
}

#[cfg(test)]
mod tests {
    use super::Fairness;

    /// Runs the scheduler over `steps`: (enabled set before the step, actor,
    /// whether it yields), with `after` the enabled set after the last one;
    /// returns the actors allowed then.
    fn run(actors: usize, steps: &[(&[usize], usize, bool)], after: &[usize]) -> Vec<usize> {
        let mut f = Fairness::default();
        for a in 0..actors {
            f.add_actor(a);
        }
        let mut enabled_sets: Vec<&[usize]> = steps.iter().map(|s| s.0).collect();
        enabled_sets.push(after);
        for (i, es) in enabled_sets.iter().enumerate() {
            // As the engine does: the enabled set only once tracking.
            if f.tracking() {
                f.clear_enabled();
                es.iter().for_each(|&a| f.mark_enabled(a));
                f.settle();
            }
            if let Some(&(_, t, y)) = steps.get(i) {
                assert!(f.allows(t), "step {i}: actor {t} is not allowed");
                if f.tracking() || y {
                    f.scheduled(t, y);
                }
            }
        }
        after.iter().copied().filter(|&a| f.allows(a)).collect()
    }

    #[test]
    fn the_digest_tells_windows_and_priorities_apart() {
        let mut f = Fairness::default();
        (0..2).for_each(|i| f.add_actor(i));
        assert_eq!(f.digest(), 0, "no yield yet: nothing to tell");
        // Actor 0 yields twice while 1 waits: its second yield loses it
        // priority to 1 (line 26), a different state from after its first.
        // One scheduling point with both enabled, as the engine drives it;
        // returns the digest there, after the previous step is settled.
        let step = |f: &mut Fairness, t: usize, yielded: bool| {
            if f.tracking() {
                f.clear_enabled();
                f.mark_enabled(0);
                f.mark_enabled(1);
                f.settle();
            }
            let digest = f.digest();
            if f.tracking() || yielded {
                f.scheduled(t, yielded);
            }
            digest
        };
        assert_eq!(step(&mut f, 0, true), 0);
        let once = step(&mut f, 0, false);
        assert_ne!(once, 0, "the first yield opened 0's window");
        step(&mut f, 0, true);
        let twice = step(&mut f, 0, false);
        assert!(f.has_edges(), "0's second yield kept 1 waiting: 0 lost priority");
        assert_ne!(twice, once);
        // Scheduling 1 gives 0 its priority back: no edge, and 0's window
        // now holds 1 as scheduled.
        step(&mut f, 1, false);
        let after = step(&mut f, 1, false);
        assert!(!f.has_edges());
        assert_ne!(after, twice);
        assert_ne!(after, once);
    }

    #[test]
    fn a_spinning_thread_loses_priority_at_its_second_yield() {
        // Fig. 3/4: t (0) would set x; u (1) spins with a yield. u's first
        // yield opens its window; at its second, t was enabled throughout
        // and never scheduled, so (u, t) enters P and only t may go on.
        let both: &[usize] = &[0, 1];
        assert_eq!(run(2, &[(both, 1, false), (both, 1, true)], both), vec![0, 1]);
        assert_eq!(run(2, &[(both, 1, false), (both, 1, true), (both, 1, false), (both, 1, true)], both), vec![0]);
    }

    #[test]
    fn scheduling_the_starved_thread_restores_priority() {
        let both: &[usize] = &[0, 1];
        let steps = [(both, 1, false), (both, 1, true), (both, 1, false), (both, 1, true), (both, 0, false)];
        assert_eq!(run(2, &steps, both), vec![0, 1]);
    }

    #[test]
    fn without_yields_no_priority_is_ever_added() {
        let all: &[usize] = &[0, 1, 2];
        let steps: Vec<(&[usize], usize, bool)> = (0..50).map(|i| (all, i % 2, false)).collect();
        assert_eq!(run(3, &steps, all), vec![0, 1, 2]);
    }

    #[test]
    fn a_thread_disabled_by_the_yielder_is_waited_for() {
        // u (1) takes a lock that t (0) waits on (t disabled), yields twice
        // while holding it: t was disabled by u in the window, so u loses
        // priority to t, but t is not enabled, so u may still run.
        let both: &[usize] = &[0, 1];
        let only_u: &[usize] = &[1];
        let steps = [(both, 1, true), (both, 1, false), (only_u, 1, true)];
        assert_eq!(run(2, &steps, only_u), vec![1]);
        // Once t is enabled again (u released), t goes first.
        assert_eq!(run(2, &steps, both), vec![0]);
    }

    #[test]
    fn actors_added_after_tracking_starts_get_empty_sets_across_a_word_boundary() {
        let mut f = Fairness::default();
        f.add_actor(0);
        f.scheduled(0, true); // Tracking starts: actor 0's first yield.
        for a in 1..70 {
            f.add_actor(a);
        }
        let es = |f: &mut Fairness| {
            f.clear_enabled();
            [0, 69].iter().for_each(|&a| f.mark_enabled(a));
            f.settle();
        };
        es(&mut f); // Opens 0's window with 0 and 69 enabled.
        f.scheduled(0, true);
        es(&mut f); // 69 stayed enabled and was never scheduled.
        assert!(!f.allows(0) && f.allows(69));
    }

    #[test]
    fn more_than_64_actors_are_tracked() {
        let all: Vec<usize> = vec![3, 70];
        let steps = [(&all[..], 70, true), (&all[..], 70, true)];
        assert_eq!(run(71, &steps, &all), vec![3]);
    }

    /// One scheduling point as the engine drives it: the enabled set
    /// `enabled`, then `t` takes a step (a yield or not).
    fn point(f: &mut Fairness, enabled: &[usize], t: usize, yielded: bool) {
        if f.tracking() {
            f.clear_enabled();
            enabled.iter().for_each(|&a| f.mark_enabled(a));
            f.settle();
        }
        assert!(f.allows(t), "actor {t} is not allowed");
        if f.tracking() || yielded {
            f.scheduled(t, yielded);
        }
    }

    #[test]
    fn finished_actors_give_their_slots_back() {
        // Actor 0 spins (a yield a step) while 1,000 short-lived actors
        // come and go, one at a time: the sets stay one word wide, and
        // the filtering is still the paper's: 0 waits for the live one.
        let mut f = Fairness::default();
        f.add_actor(0);
        for a in 1..=1000 {
            f.add_actor(a);
            point(&mut f, &[0, a], 0, true);
            point(&mut f, &[0, a], 0, true);
            f.clear_enabled();
            [0, a].iter().for_each(|&x| f.mark_enabled(x));
            f.settle();
            assert!(!f.allows(0) && f.allows(a), "actor {a}: 0 kept it waiting twice");
            f.scheduled(a, false);
            f.finish_actor(a);
            point(&mut f, &[0], 0, false);
        }
        assert_eq!((f.slots, f.words), (2, 1));
    }

    #[test]
    fn the_digest_is_told_in_actors_not_slots() {
        // Actors 0, 1 and 2; 1 finishes and 3 comes. In `early`, 1 is gone
        // before 3 comes (3 takes 1's slot); in `late`, 3 comes first (and
        // takes a new one). The same steps follow: the same digest.
        let run = |early: bool| {
            let mut f = Fairness::default();
            (0..3).for_each(|a| f.add_actor(a));
            point(&mut f, &[0, 1, 2], 0, true);
            point(&mut f, &[0, 1, 2], 1, false);
            // 1 finishes; a step of 0's is settled (freeing 1's slot), with 3
            // not yet enabled in `late` and not yet there in `early`.
            if early {
                f.finish_actor(1);
                point(&mut f, &[0, 2], 0, false);
                f.add_actor(3);
            } else {
                f.add_actor(3);
                f.finish_actor(1);
                point(&mut f, &[0, 2], 0, false);
            }
            point(&mut f, &[0, 2, 3], 2, true);
            point(&mut f, &[0, 2, 3], 0, true);
            f.clear_enabled();
            [0, 2, 3].iter().for_each(|&a| f.mark_enabled(a));
            f.settle();
            (f.slot(3), f.digest())
        };
        let ((early_slot, early), (late_slot, late)) = (run(true), run(false));
        assert_eq!((early_slot, late_slot), (1, 3));
        assert_eq!(early, late);
        assert_ne!(early, 0);
    }
}
