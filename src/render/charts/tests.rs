use super::*;
use crate::site::chart::{Point, Series};

fn point(x: f64, y: f64) -> Point {
    Point { x, y, low: Some(y * 0.9), high: Some(y * 1.2), samples: vec![y * 0.95, y, y * 1.1] }
}

fn series(name: &str, factor: f64) -> Series {
    Series {
        name: name.to_string(),
        points: (13..=26)
            .map(|e| {
                let x = 2f64.powi(e);
                point(x, 10.0 + factor * x / 1e4)
            })
            .collect(),
    }
}

fn spec(series: Vec<Series>) -> ChartSpec {
    ChartSpec {
        id: "all_reduce".into(),
        title: "all_reduce time by message size".into(),
        x_label: "message size (bytes)".into(),
        y_label: "time (µs)".into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Log10,
        series,
        description: "Median time per message size; whiskers span lowest cycle to P95.".into(),
        x_names: Vec::new(),
    }
}

fn svg_text(spec: &ChartSpec) -> String {
    String::from_utf8(render_svg(spec)).expect("SVG is UTF-8")
}

/// Tags balance, every `&` starts one of the five XML entities, nothing non-finite leaks.
fn assert_well_formed(svg: &str) {
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    let mut open: Vec<&str> = Vec::new();
    for tag in svg.split('<').skip(1) {
        let inner = &tag[..tag.find('>').expect("tag closes")];
        if let Some(name) = inner.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "unbalanced </{name}>");
        } else if !inner.ends_with('/') {
            open.push(inner.split_whitespace().next().expect("tag name"));
        }
    }
    assert!(open.is_empty(), "unclosed {open:?}");
    for (at, _) in svg.match_indices('&') {
        let entity = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"];
        assert!(entity.iter().any(|e| svg[at..].starts_with(e)), "bare & at {at}");
    }
    for word in ["NaN", "inf"] {
        assert!(!svg.contains(word), "{word} in output");
    }
}

#[test]
fn a_spec_renders_the_stored_bytes() {
    // Compared with bytes stored by an earlier build, so any change in layout, number
    // formatting or iteration order shows (re-accept deliberately with `cargo insta review`).
    let spec = spec(vec![series("ring", 1.0), series("tree", 2.0)]);
    insta::assert_snapshot!("chart_svg", String::from_utf8(render_svg(&spec)).unwrap());
    insta::assert_snapshot!("chart_csv", String::from_utf8(render_csv(&[&spec])).unwrap());
}

/// The text of every `<text>` element, in order.
fn texts(svg: &str) -> Vec<&str> {
    svg.split("</text>").filter_map(|t| t.rfind('>').map(|at| t[at + 1..].trim())).collect()
}

#[test]
fn one_chart_scales_by_its_view_box_with_a_wrapped_title() {
    let mut spec = spec(vec![series("ring", 1.0), series("tree", 2.0)]);
    spec.title = "all_reduce time by message size, median over cycles, world4_full".into();
    let svg = svg_text(&spec);
    assert_well_formed(&svg);
    assert!(svg.starts_with("<svg width=\"480\" height=\"440\" viewBox=\"0 0 480 440\""), "{svg}");
    assert!(texts(&svg).contains(&"all_reduce time by message size, median"), "{:?}", texts(&svg));
    assert!(svg.contains("font-size=\"15.48\""), "labels 19.2/1.24 px, to two decimals");
}

#[test]
fn charts_carry_the_dark_mode_style() {
    let one = spec(vec![series("ring", 1.0)]);
    let svg = svg_text(&one);
    let style = &svg[svg.find("<style>").expect("style")..svg.find("</style>").expect("style ends")];
    assert!(style.contains("@media (prefers-color-scheme: dark)"));
    assert!(style.contains("[fill=\"#FFFFFF\"]") && style.contains("[stroke=\"#0072B2\"]"));
    assert!(svg.find("</desc>") < svg.find("<style>"));
    // Every colour drawn (six series: every marker shape) has a dark-mode rule.
    let six: Vec<Series> = (0..6).map(|i| series(&format!("s{i}"), f64::from(i))).collect();
    let svg = svg_text(&spec(six));
    let style = &svg[..svg.find("</style>").expect("style")];
    assert!(svg.contains("stroke=\"#7B5CC4\"") && svg.contains("fill=\"#7B5CC4\""), "the sixth series is drawn");
    for attribute in ["fill", "stroke"] {
        let needle = format!(" {attribute}=\"#");
        for (at, _) in svg.match_indices(&needle) {
            let colour = &svg[at + needle.len() - 1..at + needle.len() + 6];
            assert!(style.contains(&format!("[{attribute}=\"{colour}\"]")), "{attribute} {colour} stays in dark mode");
        }
    }
    let empty = svg_text(&spec_with_no_series());
    assert!(empty.contains("<style>") && empty.contains(">no data</text>"));
}

fn spec_with_no_series() -> ChartSpec {
    spec(vec![])
}

#[test]
fn svg_has_alt_text_axis_labels_legend_and_background() {
    let svg = svg_text(&spec(vec![series("ring", 1.0), series("tree", 2.0)]));
    assert_well_formed(&svg);
    let after_tag = &svg[svg.find('>').expect("svg tag") + 1..];
    assert!(after_tag.starts_with("\n<title>all_reduce time by message size</title>\n<desc>"));
    assert!(svg.contains("<desc>Median time per message size;"));
    assert!(svg.contains(">\nmessage size (bytes)\n</text>"));
    assert!(svg.contains(">\ntime (µs)\n</text>"));
    assert!(svg.contains(">\nring\n</text>") && svg.contains(">\ntree\n</text>"));
    assert!(svg.contains("<rect x=\"0\" y=\"0\" width=\"480\" height=\"440\" fill=\"#FFFFFF\""));
}

#[test]
fn log2_bytes_axis_shows_binary_unit_ticks() {
    let svg = svg_text(&spec(vec![series("ring", 1.0)]));
    for tick in ["32 KiB", "1 MiB", "32 MiB"] {
        assert!(svg.contains(&format!(">\n{tick}\n</text>")), "missing {tick}");
    }
}

#[test]
fn hostile_names_are_escaped() {
    let mut spec = spec(vec![series("<script>alert(1)</script>", 1.0), series("a&b\"c'd", 2.0)]);
    spec.title = "<img src=x onerror=alert(1)>".into();
    spec.description = "</desc><script>".into();
    spec.x_label = "size & <bytes>".into();
    let svg = svg_text(&spec);
    assert_well_formed(&svg);
    assert!(!svg.contains("<script") && !svg.contains("<img"));
    assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(svg.contains("a&amp;b&quot;c&apos;d"));
    assert!(svg.contains("<desc>&lt;/desc&gt;&lt;script&gt;</desc>"));
    let csv = String::from_utf8(render_csv(&[&spec])).expect("UTF-8");
    assert!(csv.contains("all_reduce,\"a&b\"\"c'd\","));
}

#[test]
fn non_finite_and_non_positive_values_are_skipped() {
    let bad = Series {
        name: "bad".into(),
        points: vec![
            Point { x: 0.0, y: 5.0, low: None, high: None, samples: vec![] },
            Point { x: -8.0, y: 5.0, low: None, high: None, samples: vec![] },
            Point { x: 1024.0, y: f64::NAN, low: None, high: None, samples: vec![] },
            Point {
                x: 2048.0,
                y: 3.0,
                low: Some(-1.0),
                high: Some(f64::INFINITY),
                samples: vec![f64::NAN, 0.0, f64::NEG_INFINITY, 4.0],
            },
            Point { x: f64::INFINITY, y: 3.0, low: None, high: None, samples: vec![] },
        ],
    };
    let spec = spec(vec![bad]);
    let svg = svg_text(&spec);
    assert_well_formed(&svg);
    assert!(!svg.contains("no data"));
    let csv = String::from_utf8(render_csv(&[&spec])).expect("UTF-8");
    assert_eq!(
        csv,
        "chart,series,x,y,low,high,samples\nall_reduce,bad,0,5,,,\nall_reduce,bad,-8,5,,,\nall_reduce,bad,2048,3,-1,,0;4\n"
    );
}

#[test]
fn empty_or_undrawable_specs_say_no_data() {
    let nothing_positive =
        Series { name: "zeros".into(), points: vec![Point { x: 0.0, y: 0.0, low: None, high: None, samples: vec![] }] };
    for spec in [spec(vec![]), spec(vec![nothing_positive])] {
        let svg = svg_text(&spec);
        assert_well_formed(&svg);
        assert!(svg.contains(">no data</text>"));
        assert!(svg.contains("<title>all_reduce time by message size</title>"));
    }
}

#[test]
fn extreme_values_and_many_series_draw_without_panicking() {
    let extremes = [f64::MAX, f64::MIN_POSITIVE, 5e-324, 1e100, 1e-100, 1.0, 1.0 + f64::EPSILON];
    let odd = |name: &str, values: &[f64]| Series {
        name: name.into(),
        points: values.iter().map(|&v| point(v, v)).collect(),
    };
    let many: Vec<Series> = (0..40u32).map(|i| series(&"long name ".repeat(i as usize % 7), f64::from(i))).collect();
    for scale in [Scale::Linear, Scale::Log2, Scale::Log10] {
        for values in [&extremes[..], &[-3.0, -3.0], &[0.0], &[1e-12, 2e-12]] {
            let mut spec = spec(vec![odd("odd", values)]);
            (spec.x_scale, spec.y_scale) = (scale, scale);
            assert_well_formed(&svg_text(&spec));
        }
    }
    let svg = svg_text(&spec(many));
    assert_well_formed(&svg);
    assert!(svg.contains(">too many series to tell apart</text>"), "{svg}");
    assert!(!svg.contains("more") && !svg.contains('…'));
}

#[test]
fn series_names_a_spreadsheet_would_run_begin_with_a_quote() {
    let point = Point { x: 1.0, y: 2.0, low: None, high: None, samples: vec![] };
    let named = |name: &str| Series { name: name.into(), points: vec![point.clone()] };
    let spec =
        spec(vec![named("=HYPERLINK(\"http://e\",\"x\")"), named("@SUM(A1)"), named("+1"), named("-2"), named("ok")]);
    let csv = String::from_utf8(render_csv(&[&spec])).expect("UTF-8");
    let names: Vec<&str> =
        csv.lines().skip(1).map(|l| l.split_once(',').unwrap().1.rsplit_once(",1,2").unwrap().0).collect();
    assert_eq!(names, ["\"'=HYPERLINK(\"\"http://e\"\",\"\"x\"\")\"", "'@SUM(A1)", "'+1", "'-2", "ok"]);
}

#[test]
fn csv_for_two_series_and_two_charts_is_exact() {
    let spec = spec(vec![
        Series {
            name: "ring".into(),
            points: vec![
                Point { x: 8192.0, y: 12.5, low: Some(12.0), high: Some(13.25), samples: vec![12.0, 12.5, 13.25] },
                Point { x: 16384.0, y: 0.1, low: None, high: None, samples: vec![] },
            ],
        },
        Series {
            name: "tree, \"2 nodes\"".into(),
            points: vec![Point { x: 8192.0, y: 1e21, low: None, high: Some(2e21), samples: vec![1e21] }],
        },
    ]);
    let mut second = spec.clone();
    second.id = "other".into();
    second.series.truncate(1);
    second.series[0].points.truncate(1);
    let csv = String::from_utf8(render_csv(&[&spec, &second])).expect("UTF-8");
    assert_eq!(
        csv,
        concat!(
            "chart,series,x,y,low,high,samples\n",
            "all_reduce,ring,8192,12.5,12,13.25,12;12.5;13.25\n",
            "all_reduce,ring,16384,0.1,,,\n",
            "all_reduce,\"tree, \"\"2 nodes\"\"\",8192,1000000000000000000000,,2000000000000000000000,",
            "1000000000000000000000\n",
            "other,ring,8192,12.5,12,13.25,12;12.5;13.25\n",
        )
    );
}

/// Every number of a `points="..."` or `d="..."` attribute and every `cx`/`cy`: the pixels
/// the chart's marks are drawn at.
fn drawn_pixels(svg: &str) -> Vec<i64> {
    let mut pixels = Vec::new();
    for attribute in ["points=\"", " d=\"", "cx=\"", "cy=\""] {
        for (at, _) in svg.match_indices(attribute) {
            let value = &svg[at + attribute.len()..];
            let value = &value[..value.find('"').expect("attribute closes")];
            let numbers = value.split(|c: char| !(c.is_ascii_digit() || c == '-')).filter(|n| !n.is_empty());
            pixels.extend(numbers.map(|n| n.parse::<i64>().expect("whole pixels")));
        }
    }
    pixels
}

#[test]
fn a_point_beyond_a_named_axis_is_drawn_at_the_plot_edge_as_plotters_drew_it() {
    let point =
        |x: f64, y: f64| Point { x, y, low: Some(y - 1.0), high: Some(y + 1.0), samples: vec![y - 0.5, y + 0.5] };
    let beyond = ChartSpec {
        x_names: vec!["a".into(), "b".into()],
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: vec![Series { name: "s".into(), points: vec![point(0.0, 10.0), point(1.0, 11.0), point(5.0, 12.0)] }],
        ..spec(Vec::new())
    };
    let svg = svg_text(&beyond);
    assert_well_formed(&svg);
    let (marks, hover) = svg.split_at(svg.find("<g fill=\"#FFFFFF\" fill-opacity=\"0\">").expect("hover targets"));
    assert!(drawn_pixels(marks).iter().all(|&p| (0..=480).contains(&p)), "{marks}");
    // The hover target keeps the point's own place, as before.
    assert!(drawn_pixels(hover).iter().any(|&p| p > 480), "{hover}");
}

mod frame_backend {
    use super::*;
    use proptest::prelude::*;

    /// Names as runs give them: empty, long (wrapped in the legend), escaped, non-ASCII.
    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            "[a-z ]{1,12}",
            "[a-zA-Z0-9 <>&\"'·µ→=_/-]{1,90}",
            Just("run 20261202T102803Z · TP=2 · world4_full_with_a_long_folder_name".to_string()),
        ]
    }

    fn value() -> impl Strategy<Value = f64> {
        prop_oneof![
            8 => 1e-3f64..1e7,
            1 => -10.0f64..10.0,
            1 => prop_oneof![Just(0.0), Just(f64::NAN), Just(f64::INFINITY), Just(1e300), Just(5e-324)],
        ]
    }

    fn point() -> impl Strategy<Value = Point> {
        (
            value(),
            value(),
            proptest::option::of(value()),
            proptest::option::of(value()),
            proptest::collection::vec(value(), 0..6),
        )
            .prop_map(|(x, y, low, high, samples)| Point { x, y, low, high, samples })
    }

    fn scale() -> impl Strategy<Value = Scale> {
        prop_oneof![Just(Scale::Linear), Just(Scale::Log2), Just(Scale::Log10)]
    }

    fn chart() -> impl Strategy<Value = ChartSpec> {
        let series = (name(), proptest::collection::vec(point(), 0..12)).prop_map(|(name, mut points)| {
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            Series { name, points }
        });
        (
            name(),
            name(),
            name(),
            scale(),
            scale(),
            proptest::collection::vec(series, 0..26),
            prop_oneof![Just(Vec::new()), proptest::collection::vec("[a-z0-9]{1,20}", 1..40)],
        )
            .prop_map(|(title, x_label, y_label, x_scale, y_scale, series, x_names)| {
                let series = if x_names.is_empty() {
                    series
                } else {
                    // A named axis: x is a position among the names (as a history draws).
                    let names = x_names.len();
                    series
                        .into_iter()
                        .map(|mut s| {
                            s.points.iter_mut().enumerate().for_each(|(i, p)| p.x = (i % (names + 2)) as f64);
                            s
                        })
                        .collect()
                };
                ChartSpec {
                    id: "c".into(),
                    title,
                    x_label,
                    y_label,
                    x_scale,
                    y_scale,
                    series,
                    description: "d".into(),
                    x_names,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The frame written by `FrameBackend` is what `compact` makes of plotters' own SVG
        /// backend drawing the same chart, byte for byte.
        #[test]
        fn charts_are_the_bytes_plotters_svg_and_compact_give(spec in chart()) {
            let ours = render_with(&spec, &layout::CHART, plot::draw);
            let oracle = render_with(&spec, &layout::CHART, plot::draw_with_plotters_svg);
            prop_assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(oracle).unwrap());
        }
    }
}
