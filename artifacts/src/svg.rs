//! An SVG line chart of coverage growth: distinct states against
//! executions, one line per strategy, in the manner of Fig. 2 of Musuvathi
//! and Qadeer, "Iterative context bounding for systematic testing of
//! multithreaded programs" (PLDI 2007).

use std::fmt::Write as _;

use crate::escape::esc;

/// Chart width in pixels.
const WIDTH: u32 = 760;
/// Chart height in pixels.
const HEIGHT: u32 = 440;
/// Space left of the plot, for the y tick labels and axis title.
const LEFT: u32 = 78;
/// Space right of the plot, for the legend.
const RIGHT: u32 = 210;
/// Space above the plot, for the title.
const TOP: u32 = 40;
/// Space below the plot, for the x tick labels and axis title.
const BOTTOM: u32 = 56;

/// Line colours, one per series in order (then again, dashed).
pub(crate) const PALETTE: [&str; 8] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

/// Draws distinct states (y) against executions (x) as a standalone SVG
/// document, one line per `(strategy, points)` series, with a legend.
///
/// `points` are `(executions, distinct states)` pairs in increasing order
/// of executions, as in [`Report::coverage`](samaritan_sim::Report::coverage):
/// the count holds from one point to the next, so each line is drawn as a
/// staircase from the origin. Labels are escaped. With no points at all the
/// chart shows empty axes and says so.
pub fn coverage_chart(series: &[(&str, &[(u64, u64)])]) -> String {
    let max_x = series.iter().flat_map(|(_, p)| p.iter().map(|&(x, _)| x)).max().unwrap_or(0).max(1);
    let max_y = series.iter().flat_map(|(_, p)| p.iter().map(|&(_, y)| y)).max().unwrap_or(0).max(1);
    let (x_step, x_top) = axis(max_x);
    let (y_step, y_top) = axis(max_y);
    let plot_w = f64::from(WIDTH - LEFT - RIGHT);
    let plot_h = f64::from(HEIGHT - TOP - BOTTOM);
    let px = |x: u64| f64::from(LEFT) + x as f64 / x_top as f64 * plot_w;
    let py = |y: u64| f64::from(TOP) + plot_h - y as f64 / y_top as f64 * plot_h;

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="coverage-chart" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
    );
    out.push_str("<title>distinct states against executions</title>\n");
    let _ = writeln!(out, r##"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##);
    let _ = writeln!(
        out,
        r##"<text class="chart-title" x="{}" y="24" text-anchor="middle" font-size="15" font-weight="bold" fill="#222222">Coverage growth: distinct states against executions</text>"##,
        f64::from(LEFT) + plot_w / 2.0
    );

    // Grid lines and ticks.
    out.push_str("<g class=\"x-ticks\" fill=\"#444444\">\n");
    for tick in (0..=x_top).step_by(x_step as usize) {
        let x = px(tick);
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#e6e6e6"/><line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#444444"/><text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            py(0),
            py(0),
            py(0) + 5.0,
            py(0) + 19.0,
            number(tick)
        );
    }
    out.push_str("</g>\n<g class=\"y-ticks\" fill=\"#444444\">\n");
    for tick in (0..=y_top).step_by(y_step as usize) {
        let y = py(tick);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e6e6e6"/><line x1="{}" y1="{y:.1}" x2="{LEFT}" y2="{y:.1}" stroke="#444444"/><text class="tick" x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            px(x_top),
            LEFT - 5,
            LEFT - 8,
            y + 4.0,
            number(tick)
        );
    }
    out.push_str("</g>\n");

    // Axes and their titles.
    let _ = writeln!(
        out,
        r##"<path class="axes" d="M {LEFT} {TOP} V {:.1} H {:.1}" fill="none" stroke="#222222" stroke-width="1.2"/>"##,
        py(0),
        px(x_top)
    );
    let _ = writeln!(
        out,
        r##"<text class="axis-title" x="{:.1}" y="{}" text-anchor="middle" font-size="13" fill="#222222">executions</text>"##,
        f64::from(LEFT) + plot_w / 2.0,
        HEIGHT - 14
    );
    let _ = writeln!(
        out,
        r##"<text class="axis-title" x="0" y="0" transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle" font-size="13" fill="#222222">distinct states</text>"##,
        f64::from(TOP) + plot_h / 2.0
    );

    // One staircase per series.
    out.push_str("<g class=\"series\" fill=\"none\" stroke-width=\"2\" stroke-linejoin=\"round\">\n");
    for (i, (name, points)) in series.iter().enumerate() {
        let mut d = format!("M {:.1} {:.1}", px(0), py(0));
        for &(x, y) in points.iter() {
            let _ = write!(d, " H {:.1} V {:.1}", px(x), py(y));
        }
        let _ = writeln!(
            out,
            r#"<path class="line" data-series="{}" d="{d}" stroke="{}"{}><title>{}</title></path>"#,
            esc(name),
            PALETTE[i % PALETTE.len()],
            dash(i),
            esc(name)
        );
        if let Some(&(x, y)) = points.last() {
            let _ = writeln!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}" stroke="none"/>"#,
                px(x),
                py(y),
                PALETTE[i % PALETTE.len()]
            );
        }
    }
    out.push_str("</g>\n");

    // The legend, right of the plot.
    let legend_x = WIDTH - RIGHT + 18;
    out.push_str("<g class=\"legend\" fill=\"#222222\">\n");
    for (i, (name, points)) in series.iter().enumerate() {
        let y = TOP + 10 + 36 * i as u32;
        let last =
            points.last().map_or(String::new(), |&(x, y)| format!("{} states, {} executions", number(y), number(x)));
        let _ = writeln!(
            out,
            r##"<g class="legend-entry"><line x1="{legend_x}" y1="{y}" x2="{}" y2="{y}" stroke="{}" stroke-width="2.5"{}/><text x="{}" y="{}" font-weight="bold">{}</text><text x="{}" y="{}" font-size="10.5" fill="#666666">{}</text></g>"##,
            legend_x + 24,
            PALETTE[i % PALETTE.len()],
            dash(i),
            legend_x + 30,
            y + 4,
            esc(&ellipsize(name, 22)),
            legend_x + 30,
            y + 18,
            esc(&last)
        );
    }
    out.push_str("</g>\n");
    if series.iter().all(|(_, p)| p.is_empty()) {
        let _ = writeln!(
            out,
            r##"<text class="empty" x="{:.1}" y="{:.1}" text-anchor="middle" fill="#888888">no coverage data: the test named no states (samaritan::coverage::state)</text>"##,
            f64::from(LEFT) + plot_w / 2.0,
            f64::from(TOP) + plot_h / 2.0
        );
    }
    out.push_str("</svg>\n");
    out
}

/// Returns a tick step and the axis end for values up to `max`: a step of
/// 1, 2 or 5 times a power of ten giving four to ten ticks, and the first
/// multiple of it at or above `max`.
fn axis(max: u64) -> (u64, u64) {
    let max = max.max(1);
    let mut magnitude = 1u64;
    loop {
        for factor in [1, 2, 5] {
            let step = magnitude.saturating_mul(factor);
            if max.div_ceil(step) <= 8 {
                return (step, max.div_ceil(step).saturating_mul(step));
            }
        }
        magnitude = magnitude.saturating_mul(10);
    }
}

/// Formats a tick label: plain below ten thousand, else with `k` or `M`.
fn number(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 if n % 1000 == 0 => format!("{}k", n / 1000),
        10_000..=999_999 => format!("{:.1}k", n as f64 / 1000.0),
        _ if n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// Returns the dash attribute for the `i`th series: solid for the first
/// round of colours, dashed after.
fn dash(i: usize) -> &'static str {
    if i < PALETTE.len() {
        ""
    } else {
        r#" stroke-dasharray="6 3""#
    }
}

/// Cuts `text` to `max` characters, marking the cut with an ellipsis.
fn ellipsize(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max - 1).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::{axis, number};

    #[test]
    fn axes_end_on_a_round_tick() {
        assert_eq!(axis(1), (1, 1));
        assert_eq!(axis(7), (1, 7));
        assert_eq!(axis(9), (2, 10));
        assert_eq!(axis(40), (5, 40));
        assert_eq!(axis(41), (10, 50));
        assert_eq!(axis(1234), (200, 1400));
        assert_eq!(axis(u64::MAX), (5_000_000_000_000_000_000, u64::MAX));
    }

    #[test]
    fn large_tick_labels_are_short() {
        assert_eq!(number(950), "950");
        assert_eq!(number(20_000), "20k");
        assert_eq!(number(12_500), "12.5k");
        assert_eq!(number(3_000_000), "3M");
        assert_eq!(number(2_500_000), "2.5M");
    }
}
