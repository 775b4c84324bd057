//! The HTML timeline, checked with an XML parser: lanes, rows, marks,
//! edges, the elided middle of a long trace and escaping.

mod common;

use common::{edges, lanes, line, lost_update, marked, parse, steps};
use samaritan_artifacts::html;
use samaritan_sim::{Op, Trace};

/// Renders `trace` and parses the page.
#[track_caller]
fn render(trace: &Trace) -> (String, common::Element) {
    let page = html::trace(trace, "a trace");
    let root = parse(&page);
    assert_eq!(root.name, "html");
    assert_eq!(root.attr("xmlns"), Some("http://www.w3.org/1999/xhtml"));
    (page, root)
}

#[test]
fn one_lane_per_actor_one_row_per_step() {
    let (_, page) = render(&lost_update());
    assert_eq!(lanes(&page), ["main", "t1", "t2"]);
    assert_eq!(steps(&page), (0..9).collect::<Vec<_>>());
    assert!(page.all("div", "gap").is_empty());
    assert!(page.find_all(&|e| e.name == "script" || e.name == "link" || e.name == "img").is_empty());
}

#[test]
fn preemptions_yields_and_blocking_are_marked() {
    let (_, page) = render(&lost_update());
    assert_eq!(marked(&page, "preempt"), [3]);
    // The joins may wait; loads, stores and spawns never do.
    assert_eq!(marked(&page, "block"), [6, 7]);
    assert_eq!(marked(&page, "yield"), Vec::<usize>::new());

    let mut trace = lost_update();
    trace.lines.truncate(2);
    for (op, object) in [(Op::Yield, None), (Op::Lock, Some("Mutex#3")), (Op::Sleep, None), (Op::Choose, None)] {
        let index = trace.lines.len();
        trace.lines.push(line(index, "t1", op, object, false));
    }
    trace.lines[5].value = Some(1);
    let (_, page) = render(&trace);
    assert_eq!(marked(&page, "yield"), [2, 4]);
    assert_eq!(marked(&page, "block"), [3]);
    let choose = &page.all("div", "step")[5];
    assert_eq!(choose.all("span", "op")[0].text(), "choose=1");
}

#[test]
fn source_locations_show_on_hover() {
    let (_, page) = render(&lost_update());
    let cells = page.all("div", "cell");
    assert_eq!(cells.len(), 9);
    let title = cells[3].attr("title").expect("a cell has a title");
    assert_eq!(title, "step 3: t2 load Atomic#1 at src/model.rs:13:9 (preempting)");
    assert!(cells[3].has_class("preempted"));
    assert_eq!(cells[6].attr("title"), Some("step 6: main join Thread#0 at src/model.rs:16:9 (may block)"));
}

#[test]
fn edges_join_steps_on_one_object_by_different_actors() {
    let (_, page) = render(&lost_update());
    // Atomic#1 is used at steps 2 (t1), 3 (t2), 4 (t2), 5 (t1), 8 (main):
    // the actor changes between 2 and 3, 4 and 5, 5 and 8, not between 3
    // and 4. Each join's thread object is used once.
    assert_eq!(edges(&page), [(2, 3), (4, 5), (5, 8)]);
    let edge = &page.all("path", "edge")[0];
    assert_eq!(edge.text(), "Atomic#1: step 2 (t1 load) happens before step 3 (t2 load)");
}

#[test]
fn a_long_trace_shows_its_first_100_and_last_300_steps() {
    let actors = ["main", "a", "b"];
    let lines = (0..450).map(|i| line(i, actors[i % 3], Op::Rmw, Some("Atomic#0"), false)).collect();
    let (_, page) = render(&Trace { lines });
    let shown: Vec<usize> = (0..100).chain(150..450).collect();
    assert_eq!(steps(&page), shown);
    let gaps = page.all("div", "gap");
    assert_eq!(gaps.len(), 1);
    assert_eq!(gaps[0].text(), "… 50 steps not shown …");
    // Every step follows another actor's on the one object: 449 edges, of
    // which those with an end among steps 100..150 are left out (50 ending
    // there, 1 leaving 149 for 150).
    let edges = edges(&page);
    assert_eq!(edges.len(), 449 - 51);
    assert!(edges.iter().all(|&(from, to)| to == from + 1 && !(100..=150).contains(&to)));
    // A trace of exactly 400 steps is shown whole.
    let lines = (0..400).map(|i| line(i, "main", Op::Load, None, false)).collect();
    let (_, page) = render(&Trace { lines });
    assert_eq!(steps(&page).len(), 400);
    assert!(page.all("div", "gap").is_empty());
}

#[test]
fn hostile_names_are_escaped() {
    let hostile = r#"<script>alert(1)</script> & "x""#;
    let mut trace = lost_update();
    for l in &mut trace.lines {
        if l.actor == "t2" {
            l.actor = hostile.to_string();
        }
    }
    trace.lines[4].object = Some("Mutex#1\"><img src=x onerror=alert(1)>".to_string());
    trace.lines[4].location = "src/<b>.rs:1:1 & \u{1b}[31m".to_string();
    let (raw, page) = render(&trace);
    assert!(page.find_all(&|e| matches!(e.name.as_str(), "script" | "img" | "b")).is_empty());
    assert!(!raw.contains("<script>") && !raw.contains("<img"));
    assert_eq!(lanes(&page), ["main", "t1", hostile]);
    let heads = page.all("div", "lane-head");
    assert_eq!(heads[2].text(), hostile);
    assert_eq!(heads[2].attr("title"), Some(hostile));
    let cell = &page.all("div", "cell")[4];
    assert_eq!(cell.all("span", "obj")[0].text(), "Mutex#1\"><img src=x onerror=alert(1)>");
    // The escape character, which XML forbids, is replaced.
    assert_eq!(page.all("span", "where")[4].text(), "src/<b>.rs:1:1 & \u{fffd}[31m");
    assert!(raw.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
}

#[test]
fn an_empty_trace_says_so() {
    let (_, page) = render(&Trace::default());
    assert!(page.all("div", "lane").is_empty());
    assert_eq!(page.all("p", "empty")[0].text(), "the failing execution took no steps");
}

#[test]
fn a_woken_wait_gets_its_arrow_from_the_notification_that_woke_it() {
    let mut trace = Trace::default();
    let steps = [
        ("t1", Op::Wait, "begins waiting"),
        ("main", Op::NotifyOne, "woke t1"),
        ("t2", Op::Wait, "begins waiting"),
        ("t1", Op::Wait, "woken by main"),
    ];
    for (index, (actor, op, note)) in steps.into_iter().enumerate() {
        let mut l = line(index, actor, op, Some("Condvar#1"), false);
        l.note = Some(note.to_string());
        trace.lines.push(l);
    }
    let (_, page) = render(&trace);
    // Step 3's arrow comes from the notify (1), not from t2's wait (2).
    assert_eq!(edges(&page), [(0, 1), (1, 2), (1, 3)]);
    let notes: Vec<String> = page.all("span", "note").iter().map(|n| n.text()).collect();
    assert_eq!(notes, ["begins waiting", "woke t1", "begins waiting", "woken by main"]);
}
