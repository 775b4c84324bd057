//! A small XML tree for checking the HTML and SVG the crate writes: built
//! with quick-xml, which rejects a document that is not well-formed.

#![allow(dead_code, unreachable_pub)]

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use samaritan_sim::{Op, Trace, TraceLine};

/// An element: its name, attributes (unescaped) and children.
#[derive(Debug, Default)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
}

/// A child of an element.
#[derive(Debug)]
pub enum Node {
    Element(Element),
    Text(String),
}

impl Element {
    /// Returns the attribute `name`, if the element has it.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Returns whether the element's `class` list holds `class`.
    pub fn has_class(&self, class: &str) -> bool {
        self.attr("class").is_some_and(|c| c.split_whitespace().any(|c| c == class))
    }

    /// Returns the element's text, descendants included.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for child in &self.children {
            match child {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) => out.push_str(&e.text()),
            }
        }
        out
    }

    /// Returns every descendant element (and the element itself) for which
    /// `pred` holds, in document order.
    pub fn find_all(&self, pred: &dyn Fn(&Element) -> bool) -> Vec<&Element> {
        let mut found = Vec::new();
        self.walk(&mut |e| {
            if pred(e) {
                found.push(e);
            }
        });
        found
    }

    /// Returns the elements with the given name and class.
    pub fn all(&self, name: &str, class: &str) -> Vec<&Element> {
        self.find_all(&|e| e.name == name && e.has_class(class))
    }

    fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Element)) {
        f(self);
        for child in &self.children {
            if let Node::Element(e) = child {
                e.walk(f);
            }
        }
    }
}

fn element(start: &BytesStart<'_>) -> Element {
    let name = String::from_utf8(start.name().as_ref().to_vec()).expect("utf-8 name");
    let attrs = start
        .attributes()
        .map(|a| {
            let a = a.expect("a well-formed attribute");
            let key = String::from_utf8(a.key.as_ref().to_vec()).expect("utf-8 key");
            (key, a.unescape_value().expect("a value with known entities").into_owned())
        })
        .collect();
    Element { name, attrs, children: Vec::new() }
}

/// Parses `xml`, panicking unless it is well-formed with one root element.
#[track_caller]
pub fn parse(xml: &str) -> Element {
    let mut reader = Reader::from_str(xml);
    let mut stack = vec![Element::default()];
    loop {
        match reader.read_event() {
            Ok(Event::Start(start)) => stack.push(element(&start)),
            Ok(Event::Empty(start)) => {
                let e = element(&start);
                stack.last_mut().expect("an open element").children.push(Node::Element(e));
            }
            Ok(Event::End(_)) => {
                let done = stack.pop().expect("an open element");
                assert!(!stack.is_empty(), "an end tag without a start");
                stack.last_mut().expect("a parent").children.push(Node::Element(done));
            }
            Ok(Event::Text(text)) => {
                let text = text.unescape().expect("text with known entities").into_owned();
                stack.last_mut().expect("an open element").children.push(Node::Text(text));
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(err) => panic!("not well-formed XML at byte {}: {err}", reader.error_position()),
        }
    }
    assert_eq!(stack.len(), 1, "unclosed elements at the end");
    let mut roots: Vec<Element> = stack
        .pop()
        .expect("the document")
        .children
        .into_iter()
        .filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(t) => {
                assert!(t.trim().is_empty(), "text outside the root: {t:?}");
                None
            }
        })
        .collect();
    assert_eq!(roots.len(), 1, "one root element");
    roots.pop().expect("the root")
}

/// Builds a trace line: step `index` by `actor`.
pub fn line(index: usize, actor: &str, op: Op, object: Option<&str>, preempt: bool) -> TraceLine {
    TraceLine {
        index,
        actor: actor.to_string(),
        op,
        object: object.map(str::to_string),
        location: format!("src/model.rs:{}:9", 10 + index),
        value: None,
        preempt,
        read: None,
        note: None,
    }
}

/// The lost-update trace samaritan reports for `examples/lost_update.rs`.
pub fn lost_update() -> Trace {
    let a = Some("Atomic#1");
    Trace {
        lines: vec![
            line(0, "main", Op::Spawn, None, false),
            line(1, "main", Op::Spawn, None, false),
            line(2, "t1", Op::Load, a, false),
            line(3, "t2", Op::Load, a, true),
            line(4, "t2", Op::Store, a, false),
            line(5, "t1", Op::Store, a, false),
            line(6, "main", Op::Join, Some("Thread#0"), false),
            line(7, "main", Op::Join, Some("Thread#2"), false),
            line(8, "main", Op::Load, a, false),
        ],
    }
}

/// Returns the `(from, to)` step pairs of the page's happens-before edges.
pub fn edges(page: &Element) -> Vec<(usize, usize)> {
    page.all("path", "edge")
        .iter()
        .map(|e| {
            let step = |name| e.attr(name).and_then(|v| v.parse().ok()).expect("edges name their steps");
            (step("data-from"), step("data-to"))
        })
        .collect()
}

/// Returns the `data-step` of every step row, in order.
pub fn steps(page: &Element) -> Vec<usize> {
    page.all("div", "step").iter().map(|r| r.attr("data-step").and_then(|s| s.parse().ok()).expect("a step")).collect()
}

/// Returns the `data-actor` of every lane, in order.
pub fn lanes(page: &Element) -> Vec<String> {
    page.all("div", "lane").iter().map(|l| l.attr("data-actor").expect("a lane names its actor").to_string()).collect()
}

/// Returns the steps whose row holds a mark of `kind`.
pub fn marked(page: &Element, kind: &str) -> Vec<usize> {
    page.all("div", "step")
        .iter()
        .filter(|r| r.all("span", kind).iter().any(|m| m.has_class("mark")))
        .map(|r| r.attr("data-step").and_then(|s| s.parse().ok()).expect("a step"))
        .collect()
}
