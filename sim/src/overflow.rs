//! Stack overflow in a simulated thread: caught in the coroutine's guard
//! page and turned into a verdict.
//!
//! Every coroutine stack has a guard page below it (`DefaultStack`). Deep
//! recursion faults there with `SIGSEGV`, which would kill the process
//! without a word (std's own handler only knows std threads' guard pages).
//! Here a handler, installed once per process in front of whatever handler
//! was there, looks at faults on a thread that runs an actor: if the
//! faulting address is in that actor's guard page, it says so on standard
//! error (signal-safe: no allocation, no locks) and, when the engine is not
//! in the middle of its own bookkeeping, resets the coroutine's stack so
//! that, once the handler returns, the actor runs the engine's
//! `on_overflow` on a fresh stack and ends (corosensei's trap handling,
//! `CoroutineTrapHandler`). The engine records the verdict, so the search
//! reports a failure with its trace and token like any other. Faults that
//! are not an actor's overflow go to the previous handler.
//!
//! Invariants:
//! - [`RUNNING`] describes the actor whose coroutine runs on this thread
//!   right now, and nothing else: it is set around every resume and
//!   restored after it (spawning resumes a child from inside its parent).
//! - The handler reads only that thread-local, atomics and the engine's
//!   `engine_free` (a borrow-flag check); it writes with `write(2)`.
//! - What the discarded stack held is never touched again: the engine
//!   leaks the stack instead of reusing it, and gives up the execution's
//!   other actors (a scoped thread may borrow from the discarded frames).
//!
//! Only Linux on x86-64 and AArch64 is covered; elsewhere [`prepare`] does
//! nothing and an overflow crashes as before.

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) use linux::{page_size, prepare, running, Running};

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
pub(crate) use other::{page_size, prepare, running, Running};

/// The note written when a simulated thread overflows its stack: that it
/// did and, when the engine `can_go_on`, that the execution ends there with
/// a verdict; otherwise that the process stops, and how to avoid it.
fn message(out: &mut Buf, running: &Running, can_go_on: bool) {
    out.push(b"samaritan: thread '");
    match running.name() {
        Some(name) => out.push(name),
        None if running.index == 0 => out.push(b"main"),
        None => {
            out.push(b"t");
            out.number(running.index);
        }
    }
    out.push(b"' overflowed its stack of ");
    out.number(running.stack_size);
    if can_go_on {
        out.push(b" bytes; the execution ends there\n");
    } else {
        out.push(
            b" bytes inside samaritan's own bookkeeping, so it cannot go on; give simulated threads more \
              with SAMARITAN_STACK_SIZE=<bytes> (or Builder::stack_size, or thread::Builder::stack_size for one \
              thread)\n",
        );
    }
}

/// A fixed buffer to format a message in without allocating.
struct Buf {
    bytes: [u8; 512],
    len: usize,
}

impl Buf {
    fn new() -> Buf {
        Buf { bytes: [0; 512], len: 0 }
    }

    fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    fn number(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod linux {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use corosensei::trap::CoroutineTrapHandler;

    use super::{message, Buf};

    /// What the handler needs to know about the running actor.
    #[derive(Clone, Copy)]
    pub(crate) struct Running {
        /// The lowest address of its stack mapping: the guard page starts
        /// here.
        pub(crate) limit: usize,
        /// One past the highest address of the stack.
        pub(crate) base: usize,
        /// The usable size, as asked for.
        pub(crate) stack_size: usize,
        /// The actor's index.
        pub(crate) index: usize,
        /// Its given name (pointer and length of a string that outlives
        /// the actor's run), if it has one.
        pub(crate) name: Option<(*const u8, usize)>,
        /// Resets the coroutine's stack.
        pub(crate) trap: CoroutineTrapHandler<()>,
        /// Whether the engine's state may be touched (nothing borrows it):
        /// only then can the actor end normally.
        pub(crate) engine_free: fn() -> bool,
        /// Runs on the fresh stack; records the verdict for actor `index`.
        pub(crate) on_overflow: fn(usize),
    }

    impl Running {
        /// Describes actor `index`, whose coroutine `co` runs on the stack
        /// `limit..base` of `stack_size` usable bytes.
        pub(crate) fn new(
            co: &corosensei::Coroutine<
                crate::actor::Resume,
                crate::actor::Suspend,
                (),
                corosensei::stack::DefaultStack,
            >,
            (limit, base, stack_size): (usize, usize, usize),
            index: usize,
            name: Option<&str>,
            engine_free: fn() -> bool,
            on_overflow: fn(usize),
        ) -> Running {
            Running {
                limit,
                base,
                stack_size,
                index,
                name: name.map(|n| (n.as_ptr(), n.len())),
                trap: co.trap_handler(),
                engine_free,
                on_overflow,
            }
        }

        pub(super) fn name(&self) -> Option<&[u8]> {
            // SAFETY: the engine sets `name` from the actor's own string,
            // which lives as long as the actor (type invariant).
            self.name.map(|(ptr, len)| unsafe { std::slice::from_raw_parts(ptr, len) })
        }
    }

    thread_local! {
        /// The actor running on this thread (module invariant).
        static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
    }

    /// Says which actor runs on this thread from now on; returns the one
    /// that ran before, to restore after.
    #[inline]
    pub(crate) fn running(now: Option<Running>) -> Option<Running> {
        RUNNING.with(|r| r.replace(now))
    }

    /// The action that was installed before ours, to pass other faults to
    /// (set before ours is installed).
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    /// The page size, read once.
    static PAGE: AtomicUsize = AtomicUsize::new(0);

    /// The size of a memory page (of a stack's guard).
    pub(crate) fn page_size() -> usize {
        let mut page = PAGE.load(Ordering::Relaxed);
        if page == 0 {
            // SAFETY: `sysconf` has no preconditions.
            page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
            PAGE.store(page, Ordering::Relaxed);
        }
        page
    }

    /// Installs the handler (once per process) and makes sure this thread
    /// has an alternate signal stack to run it on (an overflowed stack has
    /// no room left for it).
    pub(crate) fn prepare() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            // SAFETY: plain libc calls on zeroed, then filled, structs;
            // `PREVIOUS` is set once, here, before the handler that reads
            // it is installed.
            unsafe {
                page_size();
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fault as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                // On failure the old handler stays, and overflow a crash.
                if libc::sigaction(libc::SIGSEGV, std::ptr::null(), &mut previous) == 0 {
                    let _ = PREVIOUS.set(previous);
                    libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
                }
            }
        });
        ensure_alternate_stack();
    }

    /// Gives this thread an alternate signal stack if it has none (std's
    /// threads usually have one; a thread std did not start may not). The
    /// stack is leaked: exploring threads are few and kept for reuse.
    fn ensure_alternate_stack() {
        // SAFETY: querying and setting this thread's signal stack with
        // valid pointers; the new stack is a fresh private mapping.
        unsafe {
            let mut current: libc::stack_t = std::mem::zeroed();
            if libc::sigaltstack(std::ptr::null(), &mut current) != 0 || current.ss_flags & libc::SS_DISABLE == 0 {
                return;
            }
            let size = (libc::SIGSTKSZ).max(64 * 1024);
            let map = libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if map == libc::MAP_FAILED {
                return;
            }
            let stack = libc::stack_t { ss_sp: map, ss_flags: 0, ss_size: size };
            libc::sigaltstack(&stack, std::ptr::null_mut());
        }
    }

    /// The `SIGSEGV` handler.
    extern "C" fn on_fault(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid `siginfo_t` and `ucontext_t`
        // (SA_SIGINFO); the handler reads a `Copy` thread-local.
        unsafe {
            let address = (*info).si_addr() as usize;
            let context = &mut *context.cast::<libc::ucontext_t>();
            if let Some(running) = RUNNING.with(Cell::get) {
                let page = page_size();
                let sp = stack_pointer(context);
                let in_guard = address >= running.limit && address < running.limit + page;
                let sp_near = sp >= running.limit.saturating_sub(64 * 1024) && sp < running.base;
                if in_guard && sp_near {
                    let can_go_on = (running.engine_free)();
                    let mut out = Buf::new();
                    message(&mut out, &running, can_go_on);
                    let bytes = out.as_bytes();
                    libc::write(2, bytes.as_ptr().cast(), bytes.len());
                    if !can_go_on {
                        libc::abort();
                    }
                    let on_overflow = running.on_overflow;
                    let index = running.index;
                    // SAFETY: the fault is in this coroutine's guard page
                    // with its stack pointer there, so the interrupted
                    // context is this coroutine's; the registers are set
                    // as the returned `TrapHandlerRegs` say. What the old
                    // stack held is never touched again (module invariant).
                    let regs = running.trap.setup_trap_handler(move || on_overflow(index));
                    set_registers(context, regs);
                    RUNNING.with(|r| r.set(None));
                    return;
                }
            }
            pass_on(signal, info, context);
        }
    }

    /// Calls the handler installed before ours, or lets the fault kill the
    /// process as it would have.
    unsafe fn pass_on(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::ucontext_t) {
        let handler = PREVIOUS.get().map_or(libc::SIG_DFL, |p| p.sa_sigaction);
        let siginfo = PREVIOUS.get().is_some_and(|p| p.sa_flags & libc::SA_SIGINFO != 0);
        if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
            // Back to the default; returning re-runs the faulting access.
            // SAFETY: a valid zeroed action with the default handler.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        } else if siginfo {
            // SAFETY: the previous handler was installed with SA_SIGINFO,
            // so it has this signature.
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            f(signal, info, context.cast());
        } else {
            // SAFETY: installed without SA_SIGINFO: a one-argument handler.
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            f(signal);
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn stack_pointer(context: &libc::ucontext_t) -> usize {
        context.uc_mcontext.gregs[libc::REG_RSP as usize] as usize
    }

    #[cfg(target_arch = "x86_64")]
    fn set_registers(context: &mut libc::ucontext_t, regs: corosensei::trap::TrapHandlerRegs) {
        let corosensei::trap::TrapHandlerRegs { rip, rsp, rbp, rdi, rsi } = regs;
        let gregs = &mut context.uc_mcontext.gregs;
        gregs[libc::REG_RIP as usize] = rip as i64;
        gregs[libc::REG_RSP as usize] = rsp as i64;
        gregs[libc::REG_RBP as usize] = rbp as i64;
        gregs[libc::REG_RDI as usize] = rdi as i64;
        gregs[libc::REG_RSI as usize] = rsi as i64;
    }

    #[cfg(target_arch = "aarch64")]
    fn stack_pointer(context: &libc::ucontext_t) -> usize {
        context.uc_mcontext.sp as usize
    }

    #[cfg(target_arch = "aarch64")]
    fn set_registers(context: &mut libc::ucontext_t, regs: corosensei::trap::TrapHandlerRegs) {
        let corosensei::trap::TrapHandlerRegs { pc, sp, x0, x1, x29, lr } = regs;
        let m = &mut context.uc_mcontext;
        m.pc = pc;
        m.sp = sp;
        m.regs[0] = x0;
        m.regs[1] = x1;
        m.regs[29] = x29;
        m.regs[30] = lr;
    }
}

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod other {
    /// Unused on this platform: an overflow crashes the process.
    #[derive(Clone, Copy)]
    pub(crate) struct Running {
        pub(crate) stack_size: usize,
        pub(crate) index: usize,
    }

    impl Running {
        /// As on Linux; only the size and index are kept.
        pub(crate) fn new(
            _: &corosensei::Coroutine<crate::actor::Resume, crate::actor::Suspend, (), corosensei::stack::DefaultStack>,
            (_, _, stack_size): (usize, usize, usize),
            index: usize,
            _: Option<&str>,
            _: fn() -> bool,
            _: fn(usize),
        ) -> Running {
            Running { stack_size, index }
        }

        pub(super) fn name(&self) -> Option<&[u8]> {
            None
        }
    }

    pub(crate) fn running(_: Option<Running>) -> Option<Running> {
        None
    }

    pub(crate) fn prepare() {}

    /// A typical page size; used only to describe stacks.
    pub(crate) fn page_size() -> usize {
        4096
    }
}

#[cfg(test)]
mod tests {
    use super::Buf;

    #[test]
    fn numbers_are_written_in_decimal() {
        let mut out = Buf::new();
        for n in [0, 7, 42, 2_097_152, usize::MAX] {
            out.number(n);
            out.push(b" ");
        }
        assert_eq!(out.as_bytes(), b"0 7 42 2097152 18446744073709551615 ");
    }

    #[test]
    fn a_full_buffer_drops_the_rest() {
        let mut out = Buf::new();
        for _ in 0..100 {
            out.push(b"0123456789");
        }
        assert_eq!(out.as_bytes().len(), 512);
    }
}
