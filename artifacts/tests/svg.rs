//! The coverage chart, checked with an XML parser.

mod common;

use common::parse;
use samaritan_artifacts::svg::coverage_chart;

#[test]
fn one_line_and_legend_entry_per_strategy() {
    let dfs: &[(u64, u64)] = &[(1, 3), (2, 5), (40, 6), (100, 6)];
    let random: &[(u64, u64)] = &[(1, 3), (7, 9), (100, 30)];
    let svg = parse(&coverage_chart(&[("dfs", dfs), ("random", random)]));
    assert_eq!(svg.name, "svg");
    assert_eq!(svg.attr("xmlns"), Some("http://www.w3.org/2000/svg"));
    let lines = svg.all("path", "line");
    assert_eq!(lines.iter().map(|l| l.attr("data-series").unwrap()).collect::<Vec<_>>(), ["dfs", "random"]);
    // A staircase from the origin: one horizontal and one vertical segment
    // per point.
    let d = lines[0].attr("d").unwrap();
    assert_eq!((d.matches(" H ").count(), d.matches(" V ").count()), (4, 4));
    assert_ne!(lines[0].attr("stroke"), lines[1].attr("stroke"));
    let legend: Vec<String> = svg.all("g", "legend-entry").iter().map(|e| e.text()).collect();
    assert_eq!(legend, ["dfs6 states, 100 executions", "random30 states, 100 executions"]);
}

#[test]
fn axes_have_round_ticks_and_titles() {
    let points: &[(u64, u64)] = &[(3, 1), (950, 37)];
    let svg = parse(&coverage_chart(&[("icb", points)]));
    let ticks =
        |axis: &str| -> Vec<String> { svg.all("g", axis)[0].all("text", "tick").iter().map(|t| t.text()).collect() };
    assert_eq!(ticks("x-ticks"), ["0", "200", "400", "600", "800", "1000"]);
    assert_eq!(ticks("y-ticks"), ["0", "5", "10", "15", "20", "25", "30", "35", "40"]);
    let titles: Vec<String> = svg.all("text", "axis-title").iter().map(|t| t.text()).collect();
    assert_eq!(titles, ["executions", "distinct states"]);
}

#[test]
fn labels_are_escaped() {
    let hostile = r#"<script>alert(1)</script> & "x""#;
    let raw = coverage_chart(&[(hostile, &[(1, 1)])]);
    let svg = parse(&raw);
    assert!(svg.find_all(&|e| e.name == "script").is_empty());
    assert_eq!(svg.all("path", "line")[0].attr("data-series"), Some(hostile));
    // The legend shortens long names.
    let entry = svg.all("g", "legend-entry")[0];
    let name = entry.find_all(&|e| e.name == "text")[0].text();
    assert_eq!(name, format!("{}…", &hostile[..21]));
    assert!(raw.contains("&lt;script&gt;"));
}

#[test]
fn no_data_gives_empty_axes() {
    for chart in [coverage_chart(&[]), coverage_chart(&[("dfs", &[])])] {
        let svg = parse(&chart);
        assert_eq!(
            svg.all("text", "empty")[0].text(),
            "no coverage data: the test named no states (samaritan::coverage::state)"
        );
        assert_eq!(svg.all("g", "x-ticks")[0].all("text", "tick").len(), 2);
    }
}
