//! The variable-size parts of the C11 model's stores, kept in two arenas
//! so that a store allocates nothing: each store's release *message* (a
//! vector clock) and its list of *readers* (who first read it, in which
//! epoch).
//!
//! A store's message is a [`Span`] of [`Arena::words`]; its readers are a
//! linked list through [`Arena::readers`], newest first, from a head
//! index ([`NONE`] when empty). Both arenas only grow while an execution
//! runs; what a dropped store held is counted as dead, and when more than
//! half of an arena is dead the memory model compacts it
//! ([`Arena::compact`]), handing over every live store's span and head to
//! be rewritten. So the arenas stay within twice what the live stores
//! hold, and cost O(1) amortized per store.
//!
//! Invariants:
//! - A live store's span lies within `words`, and its list visits only
//!   entries of `readers`, each once.
//! - `dead_words` and `dead_readers` count the entries no live store
//!   refers to.

/// No reader: the end of a reader list.
pub(crate) const NONE: u32 = u32::MAX;

/// Where a message lies in [`Arena::words`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// The empty message.
    pub(crate) const EMPTY: Span = Span { start: 0, len: 0 };

    pub(crate) fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// One reader of a store: the epoch of its first read.
#[derive(Clone, Copy, Debug)]
struct Reader {
    actor: u32,
    epoch: u32,
    next: u32,
}

/// The two arenas of one execution's stores (module docs). Buffers keep
/// their capacity across executions.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    words: Vec<u32>,
    readers: Vec<Reader>,
    dead_words: usize,
    dead_readers: usize,
    /// The buffers a compaction copies into, swapped in afterwards.
    spare_words: Vec<u32>,
    spare_readers: Vec<Reader>,
}

impl Arena {
    /// Forgets every message and reader.
    pub(crate) fn clear(&mut self) {
        self.words.clear();
        self.readers.clear();
        (self.dead_words, self.dead_readers) = (0, 0);
    }

    /// The message at `span`.
    #[inline]
    pub(crate) fn message(&self, span: Span) -> &[u32] {
        &self.words[span.start as usize..(span.start + span.len) as usize]
    }

    /// Stores `clock`, joined with the message at `with` when given, as a
    /// new message.
    pub(crate) fn push(&mut self, clock: &[u32], with: Option<Span>) -> Span {
        let start = self.words.len();
        self.words.extend_from_slice(clock);
        if let Some(with) = with.filter(|w| !w.is_empty()) {
            let extra = (with.len as usize).saturating_sub(clock.len());
            self.words.resize(start + clock.len() + extra, 0);
            for i in 0..with.len as usize {
                let w = self.words[with.start as usize + i];
                let slot = &mut self.words[start + i];
                *slot = (*slot).max(w);
            }
        }
        let len = self.words.len() - start;
        if len == 0 {
            return Span::EMPTY;
        }
        Span { start: start as u32, len: len as u32 }
    }

    /// The readers in the list from `head`, as (actor, epoch of its first
    /// read).
    #[inline]
    pub(crate) fn readers(&self, head: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut at = head;
        std::iter::from_fn(move || {
            let r = self.readers.get(at as usize)?;
            at = r.next;
            Some((r.actor, r.epoch))
        })
    }

    /// Adds `actor`'s first read, in `epoch`, to the list from `head`.
    pub(crate) fn add_reader(&mut self, head: &mut u32, actor: u32, epoch: u32) {
        self.readers.push(Reader { actor, epoch, next: *head });
        *head = (self.readers.len() - 1) as u32;
    }

    /// Counts a dropped store's message and readers as dead.
    pub(crate) fn release(&mut self, span: Span, head: u32) {
        self.dead_words += span.len as usize;
        self.dead_readers += self.readers(head).count();
    }

    /// Whether more than half of either arena is dead (and it is big
    /// enough for compacting to pay).
    pub(crate) fn wants_compacting(&self) -> bool {
        let half = |dead: usize, len: usize| dead > 1024 && dead * 2 > len;
        half(self.dead_words, self.words.len()) || half(self.dead_readers, self.readers.len())
    }

    /// Moves every live store's message and readers to fresh buffers,
    /// rewriting their spans and heads: `live` gives each live store's
    /// once.
    pub(crate) fn compact<'a>(&mut self, live: impl Iterator<Item = (&'a mut Span, &'a mut u32)>) {
        let (mut words, mut readers) = (std::mem::take(&mut self.spare_words), std::mem::take(&mut self.spare_readers));
        words.clear();
        readers.clear();
        for (span, head) in live {
            if !span.is_empty() {
                let start = words.len() as u32;
                words.extend_from_slice(self.message(*span));
                *span = Span { start, len: span.len };
            }
            // The list keeps its order: newest first.
            let (mut at, mut first, mut previous) = (*head, NONE, None::<usize>);
            while let Some(&r) = self.readers.get(at as usize) {
                let here = readers.len();
                readers.push(Reader { next: NONE, ..r });
                match previous {
                    None => first = here as u32,
                    Some(p) => readers[p].next = here as u32,
                }
                previous = Some(here);
                at = r.next;
            }
            *head = first;
        }
        self.spare_words = std::mem::replace(&mut self.words, words);
        self.spare_readers = std::mem::replace(&mut self.readers, readers);
        (self.dead_words, self.dead_readers) = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joined_message_takes_the_larger_of_each_component_and_the_longer_length() {
        let mut arena = Arena::default();
        let a = arena.push(&[3, 1], None);
        let b = arena.push(&[1, 2, 5], Some(a));
        assert_eq!(arena.message(b), &[3, 2, 5]);
        let c = arena.push(&[0], Some(b));
        assert_eq!(arena.message(c), &[3, 2, 5]);
        assert_eq!(arena.push(&[], None), Span::EMPTY);
        assert_eq!(arena.message(Span::EMPTY), &[] as &[u32]);
    }

    #[test]
    fn compacting_keeps_the_live_messages_and_reader_lists_and_drops_the_dead() {
        let mut arena = Arena::default();
        let mut stores: Vec<(Span, u32)> = Vec::new();
        for i in 0..3000u32 {
            let span = arena.push(&[i, i + 1], None);
            let mut head = NONE;
            for r in 0..(i % 3) {
                arena.add_reader(&mut head, r, i);
            }
            stores.push((span, head));
        }
        // Drop the first two thirds.
        for &(span, head) in &stores[..2000] {
            arena.release(span, head);
        }
        stores.drain(..2000);
        assert!(arena.wants_compacting());
        arena.compact(stores.iter_mut().map(|(s, h)| (s, h)));
        assert!(!arena.wants_compacting());
        assert_eq!(arena.words.len(), 2000);
        for (k, &(span, head)) in stores.iter().enumerate() {
            let i = 2000 + k as u32;
            assert_eq!(arena.message(span), &[i, i + 1]);
            let readers: Vec<_> = arena.readers(head).collect();
            let expected: Vec<_> = (0..(i % 3)).rev().map(|r| (r, i)).collect();
            assert_eq!(readers, expected);
        }
    }
}
