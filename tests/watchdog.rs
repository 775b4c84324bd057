//! r07: an exploring thread the watchdog gave up on does not keep a core
//! busy. (Alone in its test binary: it reads the CPU time of samaritan's
//! threads, which another test's exploration would add to.)
#![cfg(all(feature = "sim", target_os = "linux"))]

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use samaritan::{thread, Builder, Outcome};

/// CPU seconds used so far by this process's threads whose name starts
/// with `prefix` (as `/proc` shows names: at most 15 bytes).
fn cpu_seconds(prefix: &str) -> f64 {
    let mut total = 0.0;
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.trim_end().starts_with(prefix) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else { continue };
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        total += ticks / 100.0;
    }
    total
}

/// How many of this process's threads have a name starting with `prefix`.
fn threads(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| std::fs::read_to_string(t.path().join("comm")).unwrap_or_default().starts_with(prefix))
        .count()
}

#[test]
fn a_thread_the_watchdog_gave_up_on_is_throttled_until_it_lets_go() {
    static STOP: AtomicBool = AtomicBool::new(false);
    let report = Builder::new()
        .watchdog(Duration::from_millis(200))
        .explore(|| {
            thread::spawn(|| ());
            // Spins on a std atomic: no visible operation, ever (until the
            // test lets it go).
            while !STOP.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        })
        .unwrap();
    let Outcome::UncontrolledBlocking { actor, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "main");
    let before = cpu_seconds("samaritan-explo");
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_seconds("samaritan-explo") - before;
    // Unthrottled it takes the whole second; throttled about 1%.
    assert!(used < 0.25, "the left-behind thread used {used:.2} CPU seconds in 1 s");
    assert_eq!(threads("samaritan-throt"), 1);
    // Let go, the exploration stops (it was cancelled) and so does the
    // throttle.
    STOP.store(true, Ordering::Relaxed);
    let until = Instant::now() + Duration::from_secs(10);
    while threads("samaritan-throt") > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(threads("samaritan-throt"), 0);
}
