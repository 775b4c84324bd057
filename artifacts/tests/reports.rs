//! Pages and charts of real explorations (the `sim` feature of this crate
//! turns on samaritan's).
#![cfg(feature = "sim")]

mod common;

use common::{edges, lanes, marked, parse, steps, Element};
use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Outcome, Report, SearchStrategy};
use samaritan_artifacts::{html, svg};

#[path = "../../examples/lost_update.rs"]
#[allow(dead_code)]
mod lost_update;

/// Renders `report`, checks it is well-formed and returns the page.
#[track_caller]
fn page_of(report: &Report) -> (String, Element) {
    let raw = html::report(report);
    let page = parse(&raw);
    let verdict = &page.find_all(&|e| e.name == "pre" && e.has_class("verdict"))[0];
    assert_eq!(verdict.text(), report.outcome.to_string());
    (raw, page)
}

/// Returns the text of the header fact `name`.
fn fact(page: &Element, name: &str) -> String {
    page.find_all(&|e| e.name == "dd" && e.has_class(name))[0].text()
}

#[test]
fn the_lost_update_as_a_timeline() {
    let report = Builder::new().strategy(SearchStrategy::Icb).explore(lost_update::two_increments).unwrap();
    assert!(matches!(report.outcome, Outcome::Panic { .. }));
    let (_, page) = page_of(&report);
    let failure = report.failure.as_ref().unwrap();
    // The page follows the trace: one lane per thread in order of first
    // appearance, one row per step, a mark on the one preempting step.
    assert_eq!(lanes(&page), ["main", "t1", "t2"]);
    assert_eq!(steps(&page), (0..failure.trace.lines.len()).collect::<Vec<_>>());
    let preempting: Vec<usize> = failure.trace.lines.iter().filter(|l| l.preempt).map(|l| l.index).collect();
    assert_eq!(preempting.len(), 1);
    assert_eq!(marked(&page, "preempt"), preempting);
    // Both loads come before both stores (the bug), so the counter's edges
    // run load -> load -> (same thread) store -> store -> main's final load.
    let on_counter: Vec<usize> =
        failure.trace.lines.iter().filter(|l| l.object.as_deref() == Some("Atomic#1")).map(|l| l.index).collect();
    assert_eq!(on_counter.len(), 5);
    assert_eq!(
        edges(&page),
        [(on_counter[0], on_counter[1]), (on_counter[2], on_counter[3]), (on_counter[3], on_counter[4])]
    );
    assert_eq!(fact(&page, "token"), failure.token);
    assert_eq!(fact(&page, "replay"), report.replay_command().unwrap());
    assert_eq!(fact(&page, "strategy"), "icb");
    assert_eq!(fact(&page, "executions"), report.executions.to_string());
    let pre = page.find_all(&|e| e.name == "details")[0].text();
    assert!(pre.ends_with(&failure.trace.to_string()));
}

#[test]
fn a_hostile_thread_name_and_panic_message_are_escaped() {
    const HOSTILE: &str = r#"<script>alert(1)</script> & "x""#;
    let report = Builder::new()
        .explore(|| {
            let h = thread::Builder::new()
                .name(HOSTILE.to_string())
                .spawn(|| {
                    let n = AtomicUsize::new(0);
                    n.store(1, Ordering::SeqCst);
                    panic!("</pre><script>alert(2)</script> & more");
                })
                .unwrap();
            let _ = h.join();
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("a panic: {}", report.outcome) };
    assert_eq!((actor.as_str(), message.as_str()), (HOSTILE, "</pre><script>alert(2)</script> & more"));
    let (raw, page) = page_of(&report);
    assert!(page.find_all(&|e| e.name == "script").is_empty());
    assert!(!raw.contains("<script>") && !raw.contains("</pre><script>"));
    assert_eq!(lanes(&page), ["main", HOSTILE]);
    assert!(page.find_all(&|e| e.name == "title")[0].text().starts_with("samaritan: panic"));
}

#[test]
fn a_pass_gets_a_summary_with_its_coverage() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            let n = Arc::new(AtomicUsize::new(0));
            let m = n.clone();
            let h = thread::spawn(move || {
                m.fetch_add(1, Ordering::SeqCst);
                samaritan::coverage::state(m.load(Ordering::SeqCst) as u64);
            });
            n.fetch_add(2, Ordering::SeqCst);
            samaritan::coverage::state(n.load(Ordering::SeqCst) as u64);
            h.join().unwrap();
        })
        .unwrap();
    assert_eq!(report.outcome, Outcome::Pass);
    // States 1, 2 and 3 (the thread adds 1, main 2, in either order).
    assert_eq!(report.states, Some(3));
    let (_, page) = page_of(&report);
    assert!(page.all("div", "lane").is_empty() && page.all("section", "timeline").is_empty());
    let summary = page.all("section", "summary")[0].all("pre", "report")[0].text();
    assert_eq!(summary, report.to_string());
    let chart = &page.find_all(&|e| e.name == "svg" && e.has_class("coverage-chart"))[0];
    assert_eq!(chart.all("path", "line").len(), 1);
    assert_eq!(chart.all("g", "legend-entry")[0].text(), format!("dfs3 states, {} executions", report.executions));
    assert_eq!(report.coverage.last(), Some(&(report.executions, 3)));

    let alone = parse(&svg::coverage_chart(&[("dfs", &report.coverage)]));
    let d = alone.all("path", "line")[0].attr("d").unwrap().to_string();
    assert_eq!(d.matches(" H ").count(), report.coverage.len());
}

#[test]
fn a_deadlock_ends_with_the_blocked_threads_marked_in_their_lanes() {
    use samaritan::sync::{Condvar, Mutex};
    // The lost wakeup: t1 notifies before main waits; main blocks forever.
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            let pair = Arc::new((Mutex::new(()), Condvar::new()));
            let theirs = pair.clone();
            let t = thread::spawn(move || theirs.1.notify_one());
            let (m, cv) = &*pair;
            drop(cv.wait(m.lock().unwrap()).unwrap());
            t.join().unwrap();
        })
        .unwrap();
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    let (_, page) = page_of(&report);
    let rows = page.all("div", "blocked");
    assert_eq!(rows.len(), 1, "one closing row");
    let stuck = rows[0].all("div", "stuck");
    let who: Vec<(&str, String)> = stuck.iter().map(|c| (c.attr("data-actor").unwrap_or(""), c.text())).collect();
    assert_eq!(who, [("main", "blocked forever wait Condvar#1".to_string())]);
    let title = stuck[0].attr("title").unwrap_or("");
    assert!(title.starts_with("main is blocked forever in wait Condvar#1 at "), "{title}");
    // The notify's note says it found nobody, on hover and as a mark.
    let notes: Vec<String> = page.all("span", "note").iter().map(|n| n.text()).collect();
    assert_eq!(notes, ["nobody was waiting: the notification is lost", "begins waiting"]);
}
