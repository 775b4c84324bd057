//! A self-contained HTML page for a [`Report`].
//!
//! A failure is drawn as a timeline: one lane (column) per thread, in order
//! of first appearance, one row per step, each step showing its operation
//! and object. Preemptions, yields and operations that may block are
//! marked, the source location shows on hover, and an arrow joins each
//! step to the previous step on the same object when another thread took
//! it: the happens-before edges between threads. A pass gets a summary.
//!
//! The page has no external resources and no script, and is written as
//! well-formed XHTML (an XML parser reads it). Its structure is stable for
//! tools and tests: lanes are `div.lane`, step rows `div.row.step` (with
//! `data-step`), the elided middle of a long trace `div.row.gap`, after a
//! deadlock's last step `div.row.blocked` with a `div.cell.stuck` (with
//! `data-actor`) in each blocked thread's lane, marks
//! `span.mark.preempt`, `span.mark.yield`, `span.mark.block` and
//! `span.mark.read` (the thread whose store an atomic read read) and
//! `span.mark.note` (what a primitive said of the step), and edges
//! `path.edge` (with `data-from` and `data-to`).

use std::collections::HashMap;
use std::fmt::Write as _;

use samaritan_sim::{BlockedActor, Op, Outcome, Report, Trace, TraceLine};

use crate::escape::esc;
use crate::svg::{coverage_chart, PALETTE};

/// A trace longer than this shows only its first [`HEAD`] and last
/// [`TAIL`] steps, with a gap row between them.
const LONG_TRACE: usize = 400;
/// Steps shown from the start of a long trace.
const HEAD: usize = 100;
/// Steps shown from the end of a long trace.
const TAIL: usize = 300;

/// Width of the step-number column, in pixels.
const GUTTER: usize = 52;
/// Width of one lane.
const LANE: usize = 232;
/// Horizontal space between a lane's edge and its cells.
const PAD: usize = 10;
/// Height of one row.
const ROW: usize = 30;

/// Renders `report` as a self-contained HTML page: a timeline of the
/// failing trace when there is one, else a summary of the exploration.
///
/// All text from the report (thread names, panic messages, object labels,
/// locations) is escaped.
pub fn report(report: &Report) -> String {
    let mut page = String::with_capacity(16 * 1024);
    let title = format!("samaritan: {}", report.outcome.kind());
    let title = match &report.test_name {
        Some(test) if test != "main" => format!("{title} in {test}"),
        _ => title,
    };
    page_start(&mut page, &title);
    header(&mut page, report, &title);
    match &report.failure {
        Some(failure) if report.is_failure() => {
            legend(&mut page);
            let blocked = match &report.outcome {
                Outcome::Deadlock(deadlock) => deadlock.blocked.as_slice(),
                _ => &[],
            };
            timeline(&mut page, &failure.trace, blocked);
            let _ = writeln!(
                page,
                "<details class=\"text-trace\"><summary>the trace as text</summary><pre>{}</pre></details>",
                esc(&failure.trace.to_string())
            );
        }
        _ => summary(&mut page, report),
    }
    if !report.coverage.is_empty() {
        page.push_str("<section class=\"coverage\"><h2>Coverage</h2>\n");
        page.push_str(&coverage_chart(&[(report.strategy.as_str(), &report.coverage)]));
        page.push_str("</section>\n");
    }
    page.push_str(PAGE_END);
    page
}

/// Renders `trace` alone as a self-contained HTML page titled `title`: the
/// timeline of [`report`] without a verdict (for a trace read back from a
/// file with [`Trace::parse`]).
pub fn trace(trace: &Trace, title: &str) -> String {
    let mut page = String::with_capacity(16 * 1024);
    page_start(&mut page, title);
    let (steps, preemptions) = (trace.lines.len(), trace.preemptions());
    let _ = write!(
        page,
        "<header class=\"trace\">\n<h1>{}</h1>\n<dl class=\"facts\">\n<dt>steps</dt><dd class=\"steps\">{}</dd>\n</dl>\n</header>\n",
        esc(title),
        esc(&steps_text(steps, preemptions))
    );
    legend(&mut page);
    timeline(&mut page, trace, &[]);
    page.push_str(PAGE_END);
    page
}

/// The end of every page.
const PAGE_END: &str = "<footer>made by samaritan</footer>\n</body>\n</html>\n";

/// Writes the document head and opens the body.
fn page_start(page: &mut String, title: &str) {
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n\
         <meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(title)
    );
}

/// Returns "N steps, M preemptions" with the right plurals.
fn steps_text(steps: usize, preemptions: usize) -> String {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    format!("{steps} step{}, {preemptions} preemption{}", s(steps), s(preemptions))
}

/// Writes the page header: the verdict and the facts needed to act on it.
fn header(page: &mut String, report: &Report, title: &str) {
    // A misuse is no pass either.
    let class = if report.outcome.is_pass() { "pass" } else { "fail" };
    let _ = write!(
        page,
        "<header class=\"{class}\">\n<h1>{}</h1>\n<pre class=\"verdict\">{}</pre>\n<dl class=\"facts\">\n",
        esc(title),
        esc(&report.outcome.to_string())
    );
    let mut fact = |name: &str, value: &str, code: bool| {
        let (open, close) = if code { ("<code>", "</code>") } else { ("", "") };
        let _ = writeln!(page, "<dt>{}</dt><dd class=\"{}\">{open}{}{close}</dd>", esc(name), esc(name), esc(value));
    };
    fact("strategy", &report.strategy, false);
    let executions = if report.exhausted {
        format!("{} (the whole search space)", report.executions)
    } else {
        report.executions.to_string()
    };
    fact("executions", &executions, false);
    if let Some(test) = report.test_name.as_deref().filter(|t| *t != "main") {
        fact("test", test, true);
    }
    if let Some(bound) = report.completed_bound {
        let s = if bound == 1 { "" } else { "s" };
        let what = if report.outcome.is_pass() { "explored" } else { "passed" };
        fact("preemption bound", &format!("every execution with at most {bound} preemption{s} {what}"), false);
    }
    if let Some(states) = report.states {
        fact("distinct states", &states.to_string(), false);
    }
    if let Some(failure) = report.failure.as_ref().filter(|_| report.is_failure()) {
        fact("steps", &steps_text(failure.trace.lines.len(), failure.trace.preemptions()), false);
        fact("token", &failure.token, true);
        if failure.leaked_actors > 0 {
            fact("leaked threads", &format!("{} could not be unwound at teardown", failure.leaked_actors), false);
        }
    }
    if let Some(command) = report.replay_command() {
        fact("replay", &command, true);
    }
    page.push_str("</dl>\n</header>\n");
}

/// Writes the key to the marks and arrows.
fn legend(page: &mut String) {
    page.push_str(
        "<p class=\"legend\"><span class=\"mark preempt\">preempt</span> switched away from a thread that could \
         have gone on <span class=\"mark yield\">yield</span> gave up the processor <span class=\"mark block\">\
         may wait</span> an operation that can block <span class=\"mark read\">from t1</span> an atomic read \
         read t1's store <span class=\"arrow\">→</span> the previous step on the same \
         object was another thread's (happens-before); hover a step for its source line</p>\n",
    );
}

/// One row of the timeline.
enum Row<'a> {
    /// A step, with its position in the trace.
    Step(usize, &'a TraceLine),
    /// The elided middle of a long trace: how many steps it hides.
    Gap(usize),
    /// After the last step of a deadlock: where each blocked actor stays.
    Blocked,
}

/// Writes the timeline of `trace`, ending with a row that marks each of
/// `blocked` (a deadlock's actors) blocked forever in its lane.
fn timeline(page: &mut String, trace: &Trace, blocked: &[BlockedActor]) {
    let lines = &trace.lines;
    if lines.is_empty() {
        page.push_str("<p class=\"empty\">the failing execution took no steps</p>\n");
        return;
    }
    let mut actors: Vec<&str> = Vec::new();
    for line in lines {
        if !actors.contains(&line.actor.as_str()) {
            actors.push(&line.actor);
        }
    }
    let lane_of = |actor: &str| actors.iter().position(|a| *a == actor).unwrap_or(0);
    let mut objects: Vec<&str> = Vec::new();
    for object in lines.iter().filter_map(|l| l.object.as_deref()) {
        if !objects.contains(&object) {
            objects.push(object);
        }
    }
    let colour_of =
        |object: &str| objects.iter().position(|o| *o == object).map_or("#888888", |i| PALETTE[i % PALETTE.len()]);

    let mut rows: Vec<Row<'_>> = if lines.len() > LONG_TRACE {
        let head = lines[..HEAD].iter().enumerate().map(|(i, l)| Row::Step(i, l));
        let tail_start = lines.len() - TAIL;
        let tail = lines[tail_start..].iter().enumerate().map(|(i, l)| Row::Step(tail_start + i, l));
        head.chain(std::iter::once(Row::Gap(tail_start - HEAD))).chain(tail).collect()
    } else {
        lines.iter().enumerate().map(|(i, l)| Row::Step(i, l)).collect()
    };
    if blocked.iter().any(|b| actors.contains(&b.actor.as_str())) {
        rows.push(Row::Blocked);
    }
    let mut row_of = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        if let Row::Step(i, _) = row {
            row_of.insert(*i, r);
        }
    }

    let width = GUTTER + LANE * actors.len();
    let height = ROW * rows.len();
    let _ = write!(
        page,
        "<section class=\"timeline\"><h2>Timeline</h2>\n<div class=\"scroll\">\n\
         <div class=\"grid\" style=\"width:{}px\">\n<div class=\"heads\">\
         <div class=\"head gutter\" style=\"width:{GUTTER}px\">step</div>",
        width + WHERE_WIDTH
    );
    for actor in &actors {
        let _ =
            write!(page, "<div class=\"head lane-head\" style=\"width:{LANE}px\" title=\"{0}\">{0}</div>", esc(actor));
    }
    let _ = write!(
        page,
        "<div class=\"head where-head\" style=\"width:{WHERE_WIDTH}px\">source</div></div>\n\
         <div class=\"body\" style=\"height:{height}px\">\n"
    );
    for (lane, actor) in actors.iter().enumerate() {
        let _ = writeln!(
            page,
            "<div class=\"lane{}\" data-actor=\"{}\" style=\"left:{}px;width:{LANE}px\"></div>",
            if lane % 2 == 1 { " alt" } else { "" },
            esc(actor),
            GUTTER + lane * LANE
        );
    }
    edges(page, lines, &row_of, &lane_of, &colour_of, width, height);
    for (r, row) in rows.iter().enumerate() {
        let top = r * ROW;
        match row {
            Row::Gap(hidden) => {
                let _ =
                    writeln!(page, "<div class=\"row gap\" style=\"top:{top}px\">… {hidden} steps not shown …</div>");
            }
            Row::Step(index, line) => {
                let lane = lane_of(&line.actor);
                step_row(page, StepRow { index: *index, line, top, lane, lanes: actors.len() }, &colour_of);
            }
            Row::Blocked => blocked_row(page, blocked, top, &actors),
        }
    }
    page.push_str("</div>\n</div>\n</div>\n</section>\n");
}

/// Width of the source-location column right of the lanes.
const WHERE_WIDTH: usize = 330;

/// Where one step's row goes.
struct StepRow<'a> {
    /// The step's position in the trace.
    index: usize,
    /// The step.
    line: &'a TraceLine,
    /// The row's top, in pixels.
    top: usize,
    /// The step's lane.
    lane: usize,
    /// How many lanes there are.
    lanes: usize,
}

/// Writes the row of one step.
fn step_row(page: &mut String, row: StepRow<'_>, colour_of: &dyn Fn(&str) -> &'static str) {
    let StepRow { index, line, top, lane, lanes } = row;
    let op = match (line.value, line.read.as_ref().and_then(|r| r.value.as_deref())) {
        (Some(v), _) => format!("{}={v}", line.op),
        (None, Some(read)) => format!("{}={read}", line.op),
        (None, None) => line.op.to_string(),
    };
    let mut marks = String::new();
    let mut notes = Vec::new();
    // Which store a read read: on hover (the lane is narrow), and as a
    // short mark naming the writer.
    let read_note = line.read.as_ref().map(|r| r.to_string());
    if let Some(read) = &line.read {
        let writer = read.store.as_ref().map_or("initial", |(_, actor)| actor.as_str());
        let _ = write!(marks, "<span class=\"mark read\">from {}</span>", esc(writer));
    }
    if line.preempt {
        marks.push_str("<span class=\"mark preempt\">preempt</span>");
        notes.push("preempting");
    }
    if line.op.is_yield() {
        marks.push_str("<span class=\"mark yield\">yield</span>");
        notes.push("yields");
    }
    if may_block(line.op) {
        marks.push_str("<span class=\"mark block\">may wait</span>");
        notes.push("may block");
    }
    let object = line.object.as_deref().unwrap_or("");
    let mut hover = format!("step {index}: {} {op}", line.actor);
    if !object.is_empty() {
        let _ = write!(hover, " {object}");
    }
    let _ = write!(hover, " at {}", line.location);
    if !notes.is_empty() {
        let _ = write!(hover, " ({})", notes.join(", "));
    }
    if let Some(read) = &read_note {
        let _ = write!(hover, " {read}");
    }
    if let Some(note) = &line.note {
        let _ = write!(hover, " ({note})");
        let _ = write!(marks, "<span class=\"mark note\">{}</span>", esc(note));
    }
    let classes = if line.preempt { "cell preempted" } else { "cell" };
    let _ = writeln!(
        page,
        "<div class=\"row step\" id=\"step-{index}\" data-step=\"{index}\" style=\"top:{top}px\">\
         <span class=\"idx\">{index}</span>\
         <div class=\"{classes}\" style=\"left:{}px;width:{}px;border-left-color:{}\" title=\"{}\">\
         <span class=\"op\">{}</span> <span class=\"obj\">{}</span>{marks}</div>\
         <span class=\"where\" style=\"left:{}px\" title=\"{}\">{}</span></div>",
        GUTTER + lane * LANE + PAD,
        LANE - 2 * PAD,
        if object.is_empty() { "#bbbbbb" } else { colour_of(object) },
        esc(&hover),
        esc(&op),
        esc(object),
        GUTTER + LANE * lanes,
        esc(&line.location),
        esc(&line.location),
    );
}

/// Writes the row after a deadlock's last step: in each blocked actor's
/// lane, what it waits for, forever.
fn blocked_row(page: &mut String, blocked: &[BlockedActor], top: usize, actors: &[&str]) {
    let _ = write!(page, "<div class=\"row blocked\" style=\"top:{top}px\"><span class=\"idx\">end</span>");
    for b in blocked {
        let Some(lane) = actors.iter().position(|a| *a == b.actor) else { continue };
        let on = b.awaiting.as_deref().or(b.object.as_deref()).unwrap_or("");
        let what = format!("{} {on}", b.op).trim_end().to_string();
        let mut title = format!("{} is blocked forever in {what} at {}", b.actor, b.location);
        if !b.holders.is_empty() {
            let _ = write!(title, ", held by {}", b.holders.join(", "));
        }
        let _ = write!(
            page,
            "<div class=\"cell stuck\" data-actor=\"{}\" style=\"left:{}px;width:{}px\" title=\"{}\">\
             <span class=\"mark block\">blocked forever</span> <span class=\"obj\">{}</span></div>",
            esc(&b.actor),
            GUTTER + lane * LANE + PAD,
            LANE - 2 * PAD,
            esc(&title),
            esc(&what),
        );
    }
    page.push_str("</div>\n");
}

/// Writes the happens-before arrows as an SVG layer under the steps: from
/// each step on an object to the next step on it, when another thread took
/// that one; to a condvar wait that a notification woke, from that
/// notification. Edges with an end in the elided middle are left out.
fn edges(
    page: &mut String,
    lines: &[TraceLine],
    row_of: &HashMap<usize, usize>,
    lane_of: &dyn Fn(&str) -> usize,
    colour_of: &dyn Fn(&str) -> &'static str,
    width: usize,
    height: usize,
) {
    let _ = write!(
        page,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"edges\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">\n<defs>"
    );
    for (i, colour) in PALETTE.iter().enumerate() {
        let _ = write!(
            page,
            "<marker id=\"arrow-{i}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
             markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{colour}\"/></marker>"
        );
    }
    page.push_str("</defs>\n");
    let mut last_on: HashMap<&str, usize> = HashMap::new();
    for (to, line) in lines.iter().enumerate() {
        let Some(object) = line.object.as_deref() else { continue };
        let previous = last_on.insert(object, to);
        // A woken wait's arrow comes from the notification that woke it
        // (its note names the notifier), not from the object's last step.
        let notifier = line.note.as_deref().and_then(|n| n.strip_prefix("woken by "));
        let woke = notifier.and_then(|by| {
            let notifies = |l: &TraceLine| matches!(l.op, Op::NotifyOne | Op::NotifyAll);
            lines[..to].iter().rposition(|l| l.actor == by && l.object.as_deref() == Some(object) && notifies(l))
        });
        let Some(from) = woke.or(previous).filter(|&from| lines[from].actor != line.actor) else { continue };
        let (Some(&from_row), Some(&to_row)) = (row_of.get(&from), row_of.get(&to)) else { continue };
        let (from_lane, to_lane) = (lane_of(&lines[from].actor), lane_of(&line.actor));
        let rightwards = to_lane > from_lane;
        let edge_x = |lane: usize, right_side: bool| {
            let left = GUTTER + lane * LANE + PAD;
            if right_side {
                left + LANE - 2 * PAD
            } else {
                left
            }
        };
        let (x1, x2) = (edge_x(from_lane, rightwards) as f64, edge_x(to_lane, !rightwards) as f64);
        let (y1, y2) = ((from_row * ROW + ROW / 2) as f64, (to_row * ROW + ROW / 2) as f64);
        let bend = if rightwards { 1.0 } else { -1.0 } * (PAD as f64 * 2.5);
        let colour = colour_of(object);
        let marker = PALETTE.iter().position(|c| *c == colour).unwrap_or(0);
        let _ = writeln!(
            page,
            "<path class=\"edge\" data-from=\"{from}\" data-to=\"{to}\" d=\"M {x1:.1} {y1:.1} C {:.1} {y1:.1}, {:.1} \
             {y2:.1}, {x2:.1} {y2:.1}\" stroke=\"{colour}\" marker-end=\"url(#arrow-{marker})\"><title>{}</title></path>",
            x1 + bend,
            x2 - bend,
            esc(&format!(
                "{object}: step {from} ({} {}) happens before step {to} ({} {})",
                lines[from].actor, lines[from].op, line.actor, line.op
            )),
        );
    }
    page.push_str("</svg>\n");
}

/// Returns whether `op` may wait for another thread.
fn may_block(op: Op) -> bool {
    matches!(
        op,
        Op::Lock | Op::ReadLock | Op::Wait | Op::Join | Op::Recv | Op::Send | Op::BarrierWait | Op::Park | Op::CallOnce
    )
}

/// Writes the summary of a report without a failing trace.
fn summary(page: &mut String, report: &Report) {
    page.push_str("<section class=\"summary\"><h2>Summary</h2>\n");
    if report.is_failure() {
        page.push_str("<p>no trace was recorded for this failure</p>\n");
    }
    let _ = writeln!(page, "<pre class=\"report\">{}</pre>", esc(&report.to_string()));
    let facts = [
        ("exhausted", if report.exhausted { "yes: every execution was explored" } else { "no" }.to_string()),
        (
            "bounded",
            if report.bounded { "yes: executions beyond the preemption bound were left unexplored" } else { "no" }
                .to_string(),
        ),
    ];
    page.push_str("<dl class=\"facts\">\n");
    for (name, value) in facts {
        let _ = writeln!(page, "<dt>{name}</dt><dd>{}</dd>", esc(&value));
    }
    page.push_str("</dl>\n</section>\n");
}

/// The page's style sheet. It contains no `<` or `&`, so it needs no
/// escaping in XML.
const STYLE: &str = r#"
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 22px; margin: 0 0 8px 0; }
h2 { font-size: 16px; margin: 20px 0 8px 0; }
header { border-left: 6px solid #2ca02c; background: #ffffff; padding: 12px 16px; box-shadow: 0 1px 3px rgba(0,0,0,0.12); }
header.fail { border-left-color: #d62728; }
header.trace { border-left-color: #1f77b4; }
pre { font-family: Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; white-space: pre-wrap; }
pre.verdict { background: #fff4f4; border: 1px solid #f0caca; padding: 8px 10px; margin: 4px 0 10px 0; }
header.pass pre.verdict { background: #f3fbf3; border-color: #cde8cd; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0; font-size: 13px; }
dl.facts dt { color: #666666; }
dl.facts dd { margin: 0; word-break: break-all; }
code { font-family: Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; background: #f0f0f0; padding: 1px 4px; border-radius: 3px; }
p.legend { font-size: 12px; color: #444444; line-height: 22px; }
p.legend .arrow { color: #1f77b4; font-weight: bold; }
.scroll { overflow-x: auto; }
.grid { background: #ffffff; box-shadow: 0 1px 3px rgba(0,0,0,0.12); }
.heads { display: flex; position: sticky; top: 0; z-index: 3; background: #f2f2f7; border-bottom: 1px solid #d0d0d8; }
.head { box-sizing: border-box; padding: 6px 10px; font-size: 13px; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.head.gutter, .head.where-head { color: #888888; font-weight: normal; padding-left: 6px; }
.head.where-head { padding-left: 12px; }
.body { position: relative; }
.lane { position: absolute; top: 0; bottom: 0; box-sizing: border-box; border-left: 1px solid #ececf0; }
.lane.alt { background: #f7f8fb; }
svg.edges { position: absolute; left: 0; top: 0; z-index: 1; pointer-events: none; }
svg.edges path.edge { fill: none; stroke-width: 1.6; opacity: 0.85; pointer-events: stroke; }
svg.edges path.edge:hover { stroke-width: 3.2; opacity: 1; }
.row { position: absolute; left: 0; right: 0; height: 30px; z-index: 2; pointer-events: none; }
.row .idx { position: absolute; left: 0; width: 44px; text-align: right; top: 7px; font: 11px Menlo, Consolas, "DejaVu Sans Mono", monospace; color: #999999; }
.cell { position: absolute; top: 3px; height: 24px; box-sizing: border-box; padding: 0 6px; border: 1px solid #d6d6de; border-left: 4px solid #bbbbbb; border-radius: 4px; background: #ffffff; font: 12px/22px Menlo, Consolas, "DejaVu Sans Mono", monospace; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; pointer-events: auto; cursor: default; }
.cell:hover { box-shadow: 0 0 0 2px #9ab8e8; }
.cell.preempted { border-color: #d62728; border-left-color: #d62728; background: #fff6f6; }
.cell.stuck { border: 1px dashed #d62728; border-left: 4px solid #d62728; background: #fff0f0; }
.cell .op { font-weight: 700; }
.cell .obj { color: #555555; }
.mark { display: inline-block; font: 600 9.5px/14px Helvetica, Arial, sans-serif; padding: 0 5px; margin-left: 5px; border-radius: 7px; vertical-align: 1px; text-transform: uppercase; letter-spacing: 0.3px; }
.mark.preempt { background: #d62728; color: #ffffff; }
.mark.yield { background: #dbe9fb; color: #1f5fa8; }
.mark.block { background: #fdebd0; color: #9a5b00; }
.mark.read { background: #e6f4ea; color: #1e6b34; }
.mark.note { background: #f1f1f1; color: #444444; }
.row .where { position: absolute; top: 8px; font: 11px Menlo, Consolas, "DejaVu Sans Mono", monospace; color: #8a8a8a; white-space: nowrap; pointer-events: auto; padding-left: 12px; }
.row.step:hover { background: rgba(31, 119, 180, 0.06); }
.row.gap { text-align: center; font-size: 12px; color: #666666; line-height: 30px; background: repeating-linear-gradient(45deg, #f3f3f3, #f3f3f3 6px, #ffffff 6px, #ffffff 12px); }
details.text-trace { margin-top: 16px; font-size: 13px; }
section.coverage svg { background: #ffffff; box-shadow: 0 1px 3px rgba(0,0,0,0.12); }
footer { margin-top: 24px; font-size: 11px; color: #999999; }
"#;
