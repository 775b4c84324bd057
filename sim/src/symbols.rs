//! The program's own data symbols: where each `static` of the executable
//! lies, how large it is and what its bytes were when the program started,
//! read from the executable's ELF symbol table (`/proc/self/exe`).
//!
//! `test_statics` uses them to put the statics declared inside a test's
//! body back between executions, whatever their type, and to name the
//! test crate's other statics when they are the likely cause of
//! nondeterminism.
//!
//! Invariants:
//! - Only symbols of Rust's legacy mangling (`_ZN...E`, rustc's default)
//!   that name an object in a writable, allocated, non-thread-local section
//!   of the main executable are kept; a symbol table that cannot be read
//!   (no `/proc`, a stripped binary, not 64-bit little-endian ELF) yields
//!   none, and nothing is put back.
//! - The table is read once per process, on first use; addresses are the
//!   running process's (the executable's load bias added).

use std::sync::OnceLock;

/// A `static` of the main executable.
#[derive(Clone, Debug)]
pub(crate) struct DataSymbol {
    /// The mangled name (`_ZN4test1f7COUNTER17h...E`, maybe with a suffix
    /// such as `.0` that LLVM adds to a split global).
    pub(crate) name: Box<str>,
    /// Its address in this process.
    pub(crate) address: usize,
    /// Its size in bytes (at least 1).
    pub(crate) size: usize,
    /// Where its bytes at program start come from.
    pub(crate) initial: Initial,
}

/// What a static held when the program started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Initial {
    /// Zeros (`.bss`).
    Zero,
    /// The bytes at this offset of the executable file (`.data`). Bytes
    /// the dynamic loader relocates differ from the file's: a static that
    /// holds a pointer never reads as its file bytes.
    File(u64),
}

impl DataSymbol {
    /// The bytes the static held when the program started, or `None` when
    /// the executable cannot be read again.
    pub(crate) fn initial_bytes(&self) -> Option<Vec<u8>> {
        match self.initial {
            Initial::Zero => Some(vec![0; self.size]),
            Initial::File(offset) => {
                let mut bytes = vec![0; self.size];
                read_at(&std::fs::File::open("/proc/self/exe").ok()?, offset, &mut bytes)?;
                Some(bytes)
            }
        }
    }
}

/// The executable's data symbols (see the module's invariants).
pub(crate) fn data_symbols() -> &'static [DataSymbol] {
    static SYMBOLS: OnceLock<Vec<DataSymbol>> = OnceLock::new();
    SYMBOLS.get_or_init(|| read_symbols().unwrap_or_default())
}

/// The legacy mangled prefix of a path (`a::b` → `_ZN1a1b`,
/// `a::{{closure}}` → `_ZN1a28_$u7b$$u7b$closure$u7d$$u7d$`): a symbol
/// declared inside the item at `path` starts with it, followed by a digit.
/// `None` if a component is neither a plain identifier nor a closure.
pub(crate) fn mangled_prefix(path: &str) -> Option<String> {
    const CLOSURE: &str = "_$u7b$$u7b$closure$u7d$$u7d$";
    let mut prefix = String::from("_ZN");
    for component in path.split("::") {
        let component = if component == "{{closure}}" { CLOSURE } else { component };
        let plain = component == CLOSURE
            || !component.is_empty()
                && !component.starts_with(|c: char| c.is_ascii_digit())
                && component.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !plain {
            return None;
        }
        prefix.push_str(&component.len().to_string());
        prefix.push_str(component);
    }
    Some(prefix)
}

/// Whether the mangled `name` is of an item inside the one whose mangled
/// prefix is `prefix` ([`mangled_prefix`]).
pub(crate) fn is_inside(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The readable path of a legacy mangled name, without its hash
/// (`_ZN4test1f7COUNTER17h0123456789abcdefE` → `test::f::COUNTER`); the
/// name itself if it does not parse.
pub(crate) fn demangle(name: &str) -> String {
    let parsed = (|| {
        let mut rest = name.strip_prefix("_ZN")?;
        let mut components = Vec::new();
        while !rest.starts_with('E') {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let len: usize = rest[..digits].parse().ok()?;
            let component = rest.get(digits..digits + len)?;
            components.push(component);
            rest = &rest[digits + len..];
        }
        let is_hash = |c: &&str| c.len() == 17 && c.starts_with('h') && c[1..].chars().all(|c| c.is_ascii_hexdigit());
        if components.last().is_some_and(is_hash) {
            components.pop();
        }
        Some(components.iter().map(|c| unescape(c)).collect::<Vec<_>>().join("::"))
    })();
    parsed.unwrap_or_else(|| name.to_string())
}

/// Undoes the legacy mangling's escapes in one path component.
fn unescape(component: &str) -> String {
    const ESCAPES: [(&str, &str); 9] = [
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$C$", ","),
        ("$RF$", "&"),
        ("$BP$", "*"),
        ("$SP$", "@"),
        ("$u20$", " "),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
    ];
    let mut text = component.strip_prefix("_$").map_or(component.to_string(), |rest| format!("${rest}"));
    for (escape, plain) in ESCAPES {
        text = text.replace(escape, plain);
    }
    text.replace("..", "::")
}

/// Reads `buf.len()` bytes at `offset` of `file`.
#[cfg(unix)]
fn read_at(file: &std::fs::File, offset: u64, buf: &mut [u8]) -> Option<()> {
    use std::os::unix::fs::FileExt as _;
    file.read_exact_at(buf, offset).ok()
}

#[cfg(not(unix))]
fn read_at(_: &std::fs::File, _: u64, _: &mut [u8]) -> Option<()> {
    None
}

/// A little-endian integer of `N` bytes at `at` of `bytes`.
fn int<const N: usize>(bytes: &[u8], at: usize) -> Option<u64> {
    let field: [u8; N] = bytes.get(at..at + N)?.try_into().ok()?;
    let mut wide = [0u8; 8];
    wide[..N].copy_from_slice(&field);
    Some(u64::from_le_bytes(wide))
}

const SHT_SYMTAB: u64 = 2;
const SHT_NOBITS: u64 = 8;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const SHF_TLS: u64 = 0x400;
const STT_OBJECT: u64 = 1;
/// The first of the reserved section indices (`SHN_LORESERVE`).
const SHN_LORESERVE: u64 = 0xff00;

/// One section header's fields that matter here.
struct Section {
    kind: u64,
    flags: u64,
    address: u64,
    offset: u64,
    size: u64,
    link: u64,
}

#[cfg(all(target_os = "linux", target_pointer_width = "64", target_endian = "little"))]
fn read_symbols() -> Option<Vec<DataSymbol>> {
    let file = std::fs::File::open("/proc/self/exe").ok()?;
    let mut header = [0u8; 64];
    read_at(&file, 0, &mut header)?;
    // 64-bit (class 2), little-endian (data 1) ELF.
    if header[..4] != *b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        return None;
    }
    let (table, entry, count) = (int::<8>(&header, 0x28)?, int::<2>(&header, 0x3a)?, int::<2>(&header, 0x3c)?);
    if entry < 64 || count == 0 {
        return None;
    }
    let mut raw = vec![0u8; usize::try_from(entry * count).ok()?];
    read_at(&file, table, &mut raw)?;
    let sections: Vec<Section> = raw
        .chunks_exact(entry as usize)
        .map(|s| {
            Some(Section {
                kind: int::<4>(s, 4)?,
                flags: int::<8>(s, 8)?,
                address: int::<8>(s, 16)?,
                offset: int::<8>(s, 24)?,
                size: int::<8>(s, 32)?,
                link: int::<4>(s, 40)?,
            })
        })
        .collect::<Option<_>>()?;
    let symtab = sections.iter().find(|s| s.kind == SHT_SYMTAB)?;
    let strtab = sections.get(usize::try_from(symtab.link).ok()?)?;
    let mut symbols = vec![0u8; usize::try_from(symtab.size).ok()?];
    read_at(&file, symtab.offset, &mut symbols)?;
    let mut names = vec![0u8; usize::try_from(strtab.size).ok()?];
    read_at(&file, strtab.offset, &mut names)?;
    let bias = crate::statics::executable_bias();
    let mut found = Vec::new();
    for symbol in symbols.chunks_exact(24) {
        let (name, info, index) = (int::<4>(symbol, 0)?, int::<1>(symbol, 4)?, int::<2>(symbol, 6)?);
        let (value, size) = (int::<8>(symbol, 8)?, int::<8>(symbol, 16)?);
        if info & 0xf != STT_OBJECT || size == 0 || index == 0 || index >= SHN_LORESERVE {
            continue;
        }
        let Some(section) = sections.get(index as usize) else { continue };
        let writable = section.flags & (SHF_WRITE | SHF_ALLOC) == SHF_WRITE | SHF_ALLOC;
        if !writable || section.flags & SHF_TLS != 0 || value < section.address {
            continue;
        }
        let Some(name) = names.get(name as usize..).and_then(|n| n.split(|&b| b == 0).next()) else { continue };
        if !name.starts_with(b"_ZN") {
            continue;
        }
        let Ok(name) = std::str::from_utf8(name) else { continue };
        let initial = if section.kind == SHT_NOBITS {
            Initial::Zero
        } else {
            Initial::File(section.offset + (value - section.address))
        };
        found.push(DataSymbol {
            name: name.into(),
            address: bias.wrapping_add(value as usize),
            size: size as usize,
            initial,
        });
    }
    Some(found)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64", target_endian = "little")))]
fn read_symbols() -> Option<Vec<DataSymbol>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn paths_mangle_and_demangle_as_rustc_legacy_names() {
        assert_eq!(mangled_prefix("test::test_drop").as_deref(), Some("_ZN4test9test_drop"));
        assert_eq!(mangled_prefix("a::{{closure}}").as_deref(), Some("_ZN1a28_$u7b$$u7b$closure$u7d$$u7d$"));
        assert_eq!(mangled_prefix("a::{{constant}}"), None);
        assert_eq!(mangled_prefix("a::f<u8>"), None);
        assert_eq!(mangled_prefix("a::"), None);
        let name = "_ZN4test9test_drop28_$u7b$$u7b$closure$u7d$$u7d$7DROPPED17h7406e193ab736d78E";
        assert_eq!(demangle(name), "test::test_drop::{{closure}}::DROPPED");
        assert_eq!(demangle("_ZN3foo10$LT$u8$GT$3bar17h0000000000000000E.0"), "foo::<u8>::bar");
        assert_eq!(demangle("not mangled"), "not mangled");
        assert!(is_inside(name, "_ZN4test9test_drop"));
        assert!(is_inside(name, &mangled_prefix("test::test_drop::{{closure}}").unwrap()));
        assert!(!is_inside(name, "_ZN4test4test"), "a prefix of a component is not the component");
        assert!(!is_inside("_ZN4test9test_drop", "_ZN4test9test_drop"));
    }

    #[test]
    fn a_static_of_this_binary_is_found_at_its_address_with_its_initial_bytes() {
        static MARKED: AtomicU64 = AtomicU64::new(0x5a5a_0000_0000_0017);
        MARKED.fetch_add(1, Ordering::SeqCst);
        let prefix = mangled_prefix(&format!(
            "{}::a_static_of_this_binary_is_found_at_its_address_with_its_initial_bytes",
            module_path!()
        ))
        .unwrap();
        let found: Vec<&DataSymbol> = data_symbols().iter().filter(|s| is_inside(&s.name, &prefix)).collect();
        #[cfg(target_os = "linux")]
        {
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(found[0].address, &MARKED as *const AtomicU64 as usize);
            assert_eq!(found[0].size, 8);
            assert!(demangle(&found[0].name).ends_with("::MARKED"));
            assert_eq!(found[0].initial_bytes().unwrap(), 0x5a5a_0000_0000_0017u64.to_le_bytes());
        }
        #[cfg(not(target_os = "linux"))]
        assert!(found.is_empty());
    }
}
