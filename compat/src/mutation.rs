//! Planted bugs: a crate's `[[crate.mutation]]` entries, each a one-line
//! edit of its source, made alike in both copies, that its own loom tests
//! should catch.

use std::fs;
use std::path::{Component, Path};

use toml_edit::Table;

/// One planted bug: replace the only occurrence of `find` in `file`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mutation {
    /// A short id, unique within the crate; the mutant's directory name.
    pub(crate) name: String,
    /// The file to edit, relative to the crate's root.
    pub(crate) file: String,
    /// The text to replace; it must occur exactly once in `file`.
    pub(crate) find: String,
    /// What replaces it.
    pub(crate) replace: String,
    /// The tests to run, exact names as the test binaries list them.
    pub(crate) tests: Vec<String>,
}

/// Reads a crate's `[[crate.mutation]]` tables (none: an empty list).
pub(crate) fn parse(t: &Table) -> Result<Vec<Mutation>, String> {
    let Some(item) = t.get("mutation") else { return Ok(Vec::new()) };
    let list = item.as_array_of_tables().ok_or("`mutation` is not an array of tables ([[crate.mutation]])")?;
    let mut mutations: Vec<Mutation> = Vec::new();
    for (i, m) in list.iter().enumerate() {
        let m = entry(m).map_err(|e| format!("[[crate.mutation]] #{}: {e}", i + 1))?;
        if mutations.iter().any(|other| other.name == m.name) {
            return Err(format!("[[crate.mutation]] #{}: a second mutation named `{}`", i + 1, m.name));
        }
        mutations.push(m);
    }
    Ok(mutations)
}

fn entry(t: &Table) -> Result<Mutation, String> {
    let string = |key: &str| match t.get(key) {
        None => Err(format!("no `{key}`")),
        Some(v) => v.as_str().map(str::to_string).ok_or(format!("`{key}` is not a string")),
    };
    let name = string("name")?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(format!("`name` {name:?}: only letters, digits, `-` and `_`"));
    }
    let file = string("file")?;
    if !Path::new(&file).components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(format!("`file` {file:?} is not a relative path inside the crate"));
    }
    let find = string("find")?;
    if find.is_empty() {
        return Err("`find` is empty".to_string());
    }
    let tests: Vec<String> = t
        .get("tests")
        .ok_or("no `tests`")?
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
        .ok_or("`tests` is not an array of strings")?;
    if tests.is_empty() {
        return Err("`tests` is empty".to_string());
    }
    Ok(Mutation { name, file, find, replace: string("replace")?, tests })
}

impl Mutation {
    /// `text` with `find` replaced, and the line the edit changes (from 1:
    /// where `find` and `replace` first differ, for a `find` that spans
    /// lines for context). An error, naming the file and the count, unless
    /// `find` occurs exactly once (overlapping occurrences count).
    pub(crate) fn apply(&self, text: &str) -> Result<(String, usize), String> {
        let count = occurrences(text, &self.find);
        if count != 1 {
            return Err(format!("{}: `find` occurs {count} times, not exactly once", self.file));
        }
        let at = text.find(&self.find).expect("counted once");
        let same: usize =
            self.find.chars().zip(self.replace.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
        let line = text[..at + same].matches('\n').count() + 1;
        Ok((format!("{}{}{}", &text[..at], self.replace, &text[at + self.find.len()..]), line))
    }

    /// Makes the edit in the crate copy at `dir`; returns the line.
    pub(crate) fn apply_in(&self, dir: &Path) -> Result<usize, String> {
        let path = dir.join(&self.file);
        let text = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (edited, line) = self.apply(&text)?;
        fs::write(&path, edited).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(line)
    }

    /// Where the edit would go in the crate source at `dir` (`src/a.rs:12`),
    /// without making it: the exactly-once check.
    pub(crate) fn locate(&self, dir: &Path) -> Result<String, String> {
        let path = dir.join(&self.file);
        let text = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (_, line) = self.apply(&text)?;
        Ok(format!("{}:{line}", self.file))
    }
}

/// How many times `find` occurs in `text`, overlapping ones included.
fn occurrences(text: &str, find: &str) -> usize {
    let mut count = 0;
    let mut from = 0;
    while let Some(i) = text[from..].find(find) {
        count += 1;
        // Past the first character of this occurrence, not all of it.
        from += i + text[from + i..].chars().next().map_or(1, char::len_utf8);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use toml_edit::DocumentMut;

    fn mutations(text: &str) -> Result<Vec<Mutation>, String> {
        let doc: DocumentMut = text.parse().unwrap();
        let list = doc["crate"].as_array_of_tables().unwrap();
        parse(list.get(0).unwrap())
    }

    fn relaxed() -> Mutation {
        Mutation {
            name: "store-relaxed".into(),
            file: "src/lib.rs".into(),
            find: "store(1, Release)".into(),
            replace: "store(1, Relaxed)".into(),
            tests: vec!["send_recv".into()],
        }
    }

    #[test]
    fn reads_mutations() {
        let text = r#"
[[crate]]
name = "queue"
version = "1.0.0"

# The flag no longer publishes the slot.
[[crate.mutation]]
name = "store-relaxed"
file = "src/lib.rs"
find = "store(1, Release)"
replace = "store(1, Relaxed)"
tests = ["send_recv"]

[[crate.mutation]]
name = "no-lock"
file = "src/sync/mutex.rs"
find = "let _guard = self.lock.lock();"
replace = ""
tests = ["loom::a", "loom::b"]
"#;
        let list = mutations(text).unwrap();
        assert_eq!(list[0], relaxed());
        assert_eq!((list[1].replace.as_str(), list[1].tests.len()), ("", 2));
        let none = mutations("[[crate]]\nname = \"queue\"\nversion = \"1\"\n").unwrap();
        assert_eq!(none, []);
    }

    #[test]
    fn names_a_bad_mutation() {
        let head = "[[crate]]\nname = \"q\"\nversion = \"1\"\n";
        let one =
            "[[crate.mutation]]\nname = \"a\"\nfile = \"src/a.rs\"\nfind = \"x\"\nreplace = \"y\"\ntests = [\"t\"]\n";
        let check = |extra: &str| mutations(&format!("{head}{one}{extra}")).unwrap_err();
        assert_eq!(check(one), "[[crate.mutation]] #2: a second mutation named `a`");
        assert_eq!(check(&one.replace("tests = [\"t\"]", "tests = []")), "[[crate.mutation]] #2: `tests` is empty");
        assert_eq!(check(&one.replace("find = \"x\"\n", "")), "[[crate.mutation]] #2: no `find`");
        assert_eq!(
            check(&one.replace("src/a.rs", "../b.rs")),
            "[[crate.mutation]] #2: `file` \"../b.rs\" is not a relative path inside the crate"
        );
        assert_eq!(
            check(&one.replace("name = \"a\"", "name = \"a b\"")),
            "[[crate.mutation]] #2: `name` \"a b\": only letters, digits, `-` and `_`"
        );
    }

    #[test]
    fn applies_the_edit_where_find_occurs_once() {
        let text = "fn send() {\n    FLAG.store(1, Release);\n}\n";
        assert_eq!(relaxed().apply(text).unwrap(), ("fn send() {\n    FLAG.store(1, Relaxed);\n}\n".to_string(), 2));
        // A `find` that spans lines for context: the line is the one changed.
        let fence =
            Mutation { find: "arrived.\n    fence(Acquire);\n".into(), replace: "arrived.\n".into(), ..relaxed() };
        let text = "// a\n// arrived.\n    fence(Acquire);\n    take();\n";
        assert_eq!(fence.apply(text).unwrap(), ("// a\n// arrived.\n    take();\n".to_string(), 3));
    }

    #[test]
    fn refuses_zero_or_two_occurrences() {
        let m = relaxed();
        assert_eq!(
            m.apply("FLAG.store(1, SeqCst);\n").unwrap_err(),
            "src/lib.rs: `find` occurs 0 times, not exactly once"
        );
        assert_eq!(
            m.apply("A.store(1, Release);\nB.store(1, Release);\n").unwrap_err(),
            "src/lib.rs: `find` occurs 2 times, not exactly once"
        );
        // Overlapping occurrences count: "aa" is twice in "aaa".
        let aa = Mutation { find: "aa".into(), ..relaxed() };
        assert_eq!(aa.apply("aaa").unwrap_err(), "src/lib.rs: `find` occurs 2 times, not exactly once");
    }

    #[test]
    fn edits_a_copy_on_disk() {
        let dir = std::env::temp_dir().join(format!("samaritan-compat-mutation-{}", std::process::id()));
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(dir.join("src/lib.rs"), "// a\nFLAG.store(1, Release);\n").unwrap();
        let m = relaxed();
        assert_eq!(m.locate(&dir).unwrap(), "src/lib.rs:2");
        assert_eq!(m.apply_in(&dir).unwrap(), 2);
        assert_eq!(fs::read_to_string(dir.join("src/lib.rs")).unwrap(), "// a\nFLAG.store(1, Relaxed);\n");
        // Made once, the edit is not there to make again.
        assert_eq!(m.apply_in(&dir).unwrap_err(), "src/lib.rs: `find` occurs 0 times, not exactly once");
        fs::remove_dir_all(&dir).unwrap();
    }
}
