//! Small generated concurrent programs (two or three threads of loads,
//! stores, fetch-adds, compare-exchanges, critical sections and unlocked
//! cell updates; with [`Program::generate_blocking`] also condition
//! variable signals and timed waits, sleeps, and channel sends and
//! receives; with [`Program::generate_rw`] reader-writer locks, recursive
//! reads and rendezvous channels), whose outcome is every register and
//! final value. Shared by `tests/reduction_agreement.rs` and the HaPSet
//! bench.

use std::time::Duration;

use samaritan::cell::UnsafeCell;
use samaritan::sync::atomic::{fence, AtomicU32, Ordering};
use samaritan::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use samaritan::sync::{Arc, Condvar, Mutex, RwLock};
use samaritan::thread;

/// A small deterministic generator (xorshift64*).
pub(crate) struct Gen(pub(crate) u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One instruction of a generated thread. Registers are per thread.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ins {
    /// `reg = atomic[a].load()`
    Load(usize),
    /// `atomic[a].store(reg + k)`
    Store(usize, u32),
    /// `reg = atomic[a].fetch_add(k)`
    FetchAdd(usize, u32),
    /// `reg = atomic[a].compare_exchange(reg, reg + 1)` as 0/1
    Cas(usize),
    /// Under lock `l`: `shared[l] = shared[l] * 3 + reg + 1; reg = shared[l]`.
    Locked(usize),
    /// With no lock: `cell[c] = cell[c] * 3 + reg + 1; reg = cell[c]` (a
    /// read and a write of a cell, which may race).
    Cell(usize),
    /// Under lock `l`: `shared[l] = shared[l] * 3 + reg + 1; reg =
    /// shared[l]`, then `notify_one` on the lock's condition variable.
    Signal(usize),
    /// Under lock `l`: one `wait_timeout` on its condition variable, then
    /// `reg = shared[l] * 2 + timed_out`.
    Await(usize),
    /// `sleep(1ms); reg += 1`
    Sleep,
    /// `channel[c].send(reg)`
    Send(usize),
    /// `reg = channel[c].try_recv()` (plus 10; 99 when empty), the
    /// receiver taken under its own lock.
    TryRecv(usize),
    /// `reg = *rwlock[l].read() + reg`
    Read(usize),
    /// Holding `rwlock[l].read()`, read it again (std on Linux queues the
    /// second read behind a waiting writer: a deadlock), then as `Read`.
    ReadTwice(usize),
    /// `reg = rwlock[l].try_read()` as its value (99 when it would block).
    TryRead(usize),
    /// Under `rwlock[l].write()`: `value = value * 3 + reg + 1; reg = value`.
    Write(usize),
    /// `reg = rendezvous[c].try_send(reg)` as 1 (sent) or 0 (full or
    /// disconnected).
    TrySendRendezvous(usize),
    /// A fence (its ordering from the program's [`Orders`]).
    Fence,
    /// `reg = rendezvous[c].recv_timeout(1ms)` (plus 10; 99 on time-out),
    /// the receiver taken under its own lock.
    RecvRendezvous(usize),
    /// Spin until `atomic[a] >= k`, yielding after each load that saw
    /// less; `reg` = the value that ended the wait plus 100 times the
    /// loads that saw less (how long it spun is part of the outcome).
    SpinUntil(usize, u32),
    /// As `SpinUntil`, but `reg` = the value that ended the wait only: how
    /// long it spun is not part of the outcome.
    SpinQuietlyUntil(usize, u32),
}

/// Cells the generated threads share; what orders their accesses is up to
/// the program, and the race detector checks it.
pub(crate) struct Cells(Vec<UnsafeCell<u32>>);

// SAFETY: the programs run only inside explorations, where the threads are
// coroutines on one OS thread, so accesses never overlap in time; racy
// orders are what the tests look for.
unsafe impl Sync for Cells {}

/// A generated program: its threads' instructions.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) threads: Vec<Vec<Ins>>,
    pub(crate) atomics: usize,
    pub(crate) locks: usize,
    pub(crate) cells: usize,
    pub(crate) channels: usize,
    pub(crate) rwlocks: usize,
    pub(crate) rendezvous: usize,
    /// The orderings of the atomic accesses.
    pub(crate) orders: Orders,
}

/// The orderings a program's atomic accesses use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Orders {
    SeqCst,
    Relaxed,
    /// Each access its own, drawn from the seed: Relaxed, the
    /// acquire/release form that fits it, or SeqCst.
    Mixed(u64),
}

impl Orders {
    /// The ordering of instruction `i` of thread `t`, an access of `kind`:
    /// 0 a load, 1 a store, 2 a read-modify-write, 3 a fence.
    fn of(self, t: usize, i: usize, kind: usize) -> Ordering {
        use Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
        let pick = match self {
            Orders::SeqCst => return SeqCst,
            Orders::Relaxed if kind == 3 => return SeqCst,
            Orders::Relaxed => return Relaxed,
            Orders::Mixed(seed) => Gen(seed ^ ((t as u64 + 1) << 32) ^ ((i as u64 + 1) * 0x9e37_79b9)).below(3),
        };
        let forms = [
            [Relaxed, Acquire, SeqCst],
            [Relaxed, Release, SeqCst],
            [Relaxed, AcqRel, SeqCst],
            [Acquire, Release, SeqCst],
        ];
        forms[kind][pick]
    }
}

impl Program {
    /// A program of at most 8 instructions, so that DFS stays fast.
    pub(crate) fn generate(g: &mut Gen) -> Program {
        Program::generate_with(g, 0)
    }

    /// The same with `cells` cells that some instructions touch unlocked.
    pub(crate) fn generate_with(g: &mut Gen, cells: usize) -> Program {
        loop {
            let program = Program::generate_any(g, cells);
            if program.threads.iter().map(Vec::len).sum::<usize>() <= 8 {
                return program;
            }
        }
    }

    fn generate_any(g: &mut Gen, cells: usize) -> Program {
        let threads = 2 + g.below(2);
        let atomics = 1 + g.below(2);
        let locks = 1 + g.below(2);
        let max_len = if threads == 3 { 3 } else { 4 };
        let threads = (0..threads)
            .map(|_| {
                (0..1 + g.below(max_len))
                    .map(|_| match g.below(if cells > 0 { 7 } else { 5 }) {
                        5 | 6 => Ins::Cell(g.below(cells)),
                        0 => Ins::Load(g.below(atomics)),
                        1 => Ins::Store(g.below(atomics), 1 + g.below(2) as u32),
                        2 => Ins::FetchAdd(g.below(atomics), 1 + g.below(2) as u32),
                        3 => Ins::Cas(g.below(atomics)),
                        _ => Ins::Locked(g.below(locks)),
                    })
                    .collect()
            })
            .collect();
        Program { threads, atomics, locks, cells, channels: 0, rwlocks: 0, rendezvous: 0, orders: Orders::SeqCst }
    }

    /// A program in the shapes weak memory shows in (store buffering,
    /// message passing, IRIW, 2+2W): two or three threads of loads,
    /// stores and fences on two atomics, few read-modify-writes, each
    /// access with its own ordering; at most 8 instructions.
    pub(crate) fn generate_weak(g: &mut Gen) -> Program {
        let threads = 2 + g.below(2);
        let max_len = if threads == 3 { 2 } else { 4 };
        let threads = (0..threads)
            .map(|_| {
                (0..2 + g.below(max_len - 1))
                    .map(|_| match g.below(20) {
                        0..=7 => Ins::Load(g.below(2)),
                        8..=14 => Ins::Store(g.below(2), 1 + g.below(2) as u32),
                        15 | 16 => Ins::FetchAdd(g.below(2), 1),
                        _ => Ins::Fence,
                    })
                    .collect()
            })
            .collect();
        let orders = Orders::Mixed(g.next());
        Program { threads, atomics: 2, locks: 0, cells: 0, channels: 0, rwlocks: 0, rendezvous: 0, orders }
    }

    /// A program of at most 8 instructions mixing every kind of atomic
    /// access (loads, stores, read-modify-writes, compare-exchanges and
    /// fences, each with its own ordering) with a lock and, half the time,
    /// a cell: the weak loads that commute with the stores before them
    /// ([`samaritan::Op::WeakLoad`]), the `SeqCst` accesses and fences that
    /// do not, and the synchronization that orders them.
    pub(crate) fn generate_mixed(g: &mut Gen) -> Program {
        loop {
            let threads = 2 + g.below(2);
            let cells = g.below(2);
            let max_len = if threads == 3 { 3 } else { 4 };
            let threads = (0..threads)
                .map(|_| {
                    (0..1 + g.below(max_len))
                        .map(|_| match g.below(if cells > 0 { 22 } else { 20 }) {
                            0..=6 => Ins::Load(g.below(2)),
                            7..=11 => Ins::Store(g.below(2), 1 + g.below(2) as u32),
                            12 | 13 => Ins::FetchAdd(g.below(2), 1),
                            14 | 15 => Ins::Cas(g.below(2)),
                            16 | 17 => Ins::Fence,
                            18 | 19 => Ins::Locked(0),
                            _ => Ins::Cell(0),
                        })
                        .collect()
                })
                .collect();
            let orders = Orders::Mixed(g.next());
            let program =
                Program { threads, atomics: 2, locks: 1, cells, channels: 0, rwlocks: 0, rendezvous: 0, orders };
            if program.threads.iter().map(Vec::len).sum::<usize>() <= 8 {
                return program;
            }
        }
    }

    /// A program of at most 5 instructions that also signals and waits on
    /// condition variables, sleeps and uses channels.
    pub(crate) fn generate_blocking(g: &mut Gen) -> Program {
        loop {
            let threads = 2 + g.below(2);
            let (atomics, locks, channels) = (1, 1 + g.below(2), 1);
            let program = Program {
                threads: (0..threads)
                    .map(|_| {
                        (0..1 + g.below(3))
                            .map(|_| match g.below(8) {
                                0 => Ins::Load(0),
                                1 => Ins::Store(0, 1 + g.below(2) as u32),
                                2 => Ins::Locked(g.below(locks)),
                                3 => Ins::Signal(g.below(locks)),
                                4 => Ins::Await(g.below(locks)),
                                5 => Ins::Sleep,
                                6 => Ins::Send(g.below(channels)),
                                _ => Ins::TryRecv(g.below(channels)),
                            })
                            .collect()
                    })
                    .collect(),
                atomics,
                locks,
                cells: 0,
                channels,
                rwlocks: 0,
                rendezvous: 0,
                orders: Orders::SeqCst,
            };
            if program.threads.iter().map(Vec::len).sum::<usize>() <= 5 {
                return program;
            }
        }
    }

    /// A program of at most 7 instructions whose threads wait for each
    /// other by spinning: thread `t` raises its flag (atomic `t`, by
    /// fetch-add) and may spin, yielding, until the flag of an earlier
    /// thread reaches a count that thread raises it to, beside loads,
    /// stores and fetch-adds of one data atomic and critical sections. A
    /// thread waits only on earlier ones, so every execution ends; the
    /// fair scheduler makes each spin finite.
    pub(crate) fn generate_spinning(g: &mut Gen) -> Program {
        Program::spinning(g, false)
    }

    /// [`Program::generate_spinning`] with each access's ordering drawn
    /// ([`Orders::Mixed`]): spins whose loads may read older stores.
    pub(crate) fn generate_spinning_weak(g: &mut Gen) -> Program {
        Program::spinning(g, true)
    }

    /// The program with every spin's length left out of its outcome
    /// ([`Ins::SpinQuietlyUntil`]).
    pub(crate) fn quiet_spins(&self) -> Program {
        let quiet = |ins: &Ins| match *ins {
            Ins::SpinUntil(a, k) => Ins::SpinQuietlyUntil(a, k),
            other => other,
        };
        Program { threads: self.threads.iter().map(|t| t.iter().map(quiet).collect()).collect(), ..self.clone() }
    }

    fn spinning(g: &mut Gen, weak: bool) -> Program {
        loop {
            let threads = 2 + g.below(2);
            let (data, locks) = (threads, 1);
            let mut raised = vec![0u32; threads];
            let body: Vec<Vec<Ins>> = (0..threads)
                .map(|t| {
                    (0..1 + g.below(3))
                        .map(|_| match g.below(6) {
                            0 => Ins::Load(data),
                            1 => Ins::Store(data, 1 + g.below(2) as u32),
                            2 => Ins::FetchAdd(data, 1),
                            3 => Ins::Locked(g.below(locks)),
                            4 => {
                                raised[t] += 1;
                                Ins::FetchAdd(t, 1)
                            }
                            _ => match (0..t).filter(|&j| raised[j] > 0).collect::<Vec<_>>() {
                                earlier if earlier.is_empty() => Ins::Load(data),
                                earlier => {
                                    let j = earlier[g.below(earlier.len())];
                                    Ins::SpinUntil(j, 1 + g.below(raised[j] as usize) as u32)
                                }
                            },
                        })
                        .collect()
                })
                .collect();
            let spins = body.iter().flatten().any(|i| matches!(i, Ins::SpinUntil(..)));
            if spins && body.iter().map(Vec::len).sum::<usize>() <= 7 {
                return Program {
                    threads: body,
                    atomics: threads + 1,
                    locks,
                    cells: 0,
                    channels: 0,
                    rwlocks: 0,
                    rendezvous: 0,
                    orders: if weak { Orders::Mixed(g.next()) } else { Orders::SeqCst },
                };
            }
        }
    }

    /// A program of at most 5 instructions over one reader-writer lock
    /// (reads, recursive reads, `try_read`, writes), one rendezvous
    /// channel (`try_send`, timed receives) and one atomic: the choices
    /// that depend on what another thread has announced (a waiting writer,
    /// a receiver at its receive).
    pub(crate) fn generate_rw(g: &mut Gen) -> Program {
        loop {
            let threads = 2 + g.below(2);
            let program = Program {
                threads: (0..threads)
                    .map(|_| {
                        (0..1 + g.below(3))
                            .map(|_| match g.below(8) {
                                0 => Ins::Load(0),
                                1 => Ins::Store(0, 1 + g.below(2) as u32),
                                2 => Ins::Read(0),
                                3 => Ins::ReadTwice(0),
                                4 => Ins::TryRead(0),
                                5 => Ins::Write(0),
                                6 => Ins::TrySendRendezvous(0),
                                _ => Ins::RecvRendezvous(0),
                            })
                            .collect()
                    })
                    .collect(),
                atomics: 1,
                locks: 0,
                cells: 0,
                channels: 0,
                rwlocks: 1,
                rendezvous: 1,
                orders: Orders::SeqCst,
            };
            if program.threads.iter().map(Vec::len).sum::<usize>() <= 5 {
                return program;
            }
        }
    }

    /// Runs the program once; returns its outcome (every register and
    /// final value).
    pub(crate) fn run(&self) -> Vec<u32> {
        let atomics: Arc<Vec<AtomicU32>> = Arc::new((0..self.atomics).map(|_| AtomicU32::new(0)).collect());
        let locks: Arc<Vec<Mutex<u32>>> = Arc::new((0..self.locks).map(|_| Mutex::new(0)).collect());
        let cells = Arc::new(Cells((0..self.cells).map(|_| UnsafeCell::new(0)).collect()));
        let conds: Arc<Vec<Condvar>> = Arc::new((0..self.locks).map(|_| Condvar::new()).collect());
        let (senders, receivers): (Vec<Sender<u32>>, Vec<Receiver<u32>>) =
            (0..self.channels).map(|_| channel()).unzip();
        let receivers: Arc<Vec<Mutex<Receiver<u32>>>> = Arc::new(receivers.into_iter().map(Mutex::new).collect());
        let rwlocks: Arc<Vec<RwLock<u32>>> = Arc::new((0..self.rwlocks).map(|_| RwLock::new(0)).collect());
        let (meeting, waiting): (Vec<SyncSender<u32>>, Vec<Receiver<u32>>) =
            (0..self.rendezvous).map(|_| sync_channel(0)).unzip();
        let waiting: Arc<Vec<Mutex<Receiver<u32>>>> = Arc::new(waiting.into_iter().map(Mutex::new).collect());
        let handles: Vec<_> = self
            .threads
            .iter()
            .enumerate()
            .map(|(t, body)| {
                let (body, atomics, locks, cells) = (body.clone(), atomics.clone(), locks.clone(), cells.clone());
                let (conds, senders, receivers) = (conds.clone(), senders.clone(), receivers.clone());
                let (rwlocks, meeting, waiting) = (rwlocks.clone(), meeting.clone(), waiting.clone());
                let orders = self.orders;
                thread::spawn(move || {
                    let mut reg = 0u32;
                    let mut seen = Vec::new();
                    for (i, ins) in body.into_iter().enumerate() {
                        let order = |kind| orders.of(t, i, kind);
                        match ins {
                            Ins::Load(a) => reg = atomics[a].load(order(0)),
                            Ins::Store(a, k) => atomics[a].store(reg + k, order(1)),
                            Ins::FetchAdd(a, k) => reg = atomics[a].fetch_add(k, order(2)),
                            Ins::Cas(a) => {
                                // The failure ordering: the success's load part.
                                let failure = match order(2) {
                                    Ordering::AcqRel => Ordering::Acquire,
                                    Ordering::Release => Ordering::Relaxed,
                                    other => other,
                                };
                                let ok = atomics[a].compare_exchange(reg, reg + 1, order(2), failure);
                                reg = u32::from(ok.is_ok());
                            }
                            Ins::Fence => fence(order(3)),
                            Ins::SpinUntil(a, k) | Ins::SpinQuietlyUntil(a, k) => {
                                let counted = u32::from(matches!(ins, Ins::SpinUntil(..)));
                                let mut spun = 0;
                                loop {
                                    let seen = atomics[a].load(order(0));
                                    if seen >= k {
                                        reg = seen + 100 * spun * counted;
                                        break;
                                    }
                                    spun += 1;
                                    thread::yield_now();
                                }
                            }
                            Ins::Locked(l) => {
                                let mut shared = locks[l].lock().unwrap();
                                *shared = *shared * 3 + reg + 1;
                                reg = *shared;
                            }
                            Ins::Cell(c) => {
                                let old = cells.0[c].with(|p| {
                                    // SAFETY: see `Cells`.
                                    unsafe { *p }
                                });
                                reg = old * 3 + reg + 1;
                                cells.0[c].with_mut(|p| {
                                    // SAFETY: see `Cells`.
                                    unsafe { *p = reg }
                                });
                            }
                            Ins::Signal(l) => {
                                let mut shared = locks[l].lock().unwrap();
                                *shared = *shared * 3 + reg + 1;
                                reg = *shared;
                                conds[l].notify_one();
                            }
                            Ins::Await(l) => {
                                let shared = locks[l].lock().unwrap();
                                let (shared, waited) = conds[l].wait_timeout(shared, Duration::from_millis(1)).unwrap();
                                reg = *shared * 2 + u32::from(waited.timed_out());
                            }
                            Ins::Sleep => {
                                thread::sleep(Duration::from_millis(1));
                                reg += 1;
                            }
                            Ins::Send(c) => senders[c].send(reg).unwrap(),
                            Ins::TryRecv(c) => reg = receivers[c].lock().unwrap().try_recv().map_or(99, |v| v + 10),
                            Ins::Read(l) => reg += *rwlocks[l].read().unwrap(),
                            Ins::ReadTwice(l) => {
                                let first = rwlocks[l].read().unwrap();
                                reg += *first + *rwlocks[l].read().unwrap();
                            }
                            Ins::TryRead(l) => reg = rwlocks[l].try_read().map_or(99, |v| *v),
                            Ins::Write(l) => {
                                let mut value = rwlocks[l].write().unwrap();
                                *value = *value * 3 + reg + 1;
                                reg = *value;
                            }
                            Ins::TrySendRendezvous(c) => reg = u32::from(meeting[c].try_send(reg).is_ok()),
                            Ins::RecvRendezvous(c) => {
                                let received = waiting[c].lock().unwrap().recv_timeout(Duration::from_millis(1));
                                reg = received.map_or(99, |v| v + 10);
                            }
                        }
                        seen.push(reg);
                    }
                    seen
                })
            })
            .collect();
        drop(senders);
        drop(meeting);
        let mut outcome: Vec<u32> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
        for receiver in receivers.iter() {
            outcome.extend(receiver.lock().unwrap().try_iter());
        }
        outcome.extend(atomics.iter().map(|a| a.load(Ordering::SeqCst)));
        outcome.extend(locks.iter().map(|l| *l.lock().unwrap()));
        outcome.extend(rwlocks.iter().map(|l| *l.read().unwrap()));
        outcome.extend(cells.0.iter().map(|c| {
            // SAFETY: every thread has been joined.
            c.with(|p| unsafe { *p })
        }));
        outcome
    }
}
