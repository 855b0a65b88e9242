//! The maps of the code cannot drift: every folder's module table (`src/lib.rs`, each
//! folder's `mod.rs`, the bench's `main.rs`) names every module of its folder, and its
//! `may call` column is exactly what the code calls; and no modules of a folder call each
//! other in a circle (its own file aside).
//!
//! A table is the one of the crate root's or folder's docs whose header has a `may call`
//! column. Its first column names one module or several (`` `x.rs` ``, `` `x/` ``, `` [`x`] ``;
//! `mod.rs` or `lib.rs` for the folder's own file); its `may call` column lists the
//! modules of the same folder that they call, as `` `x` `` (or `` `x::item` ``), separated by
//! commas, or `—` for none: nothing else, so that no unchecked claim hides there. What lies
//! outside a folder is the concern of the table of the folder that holds both.
//!
//! A module *calls* another when one of its files names a path into it (a `use` or a path in
//! code, `crate::…`, `super::…`, `self::…` or a child module's name), as written: a path to
//! an item the folder's own file defines or re-exports is a call of that file. Comments,
//! strings and `#[cfg(test)] mod` blocks do not count. A call between two modules of one
//! folder is the call of every module (file or sub-folder) holding either end.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// The name of a folder's own file in tables and edges.
const OWN: &str = "mod";

/// One crate's files: each with its module path and the module paths it names.
struct Crate {
    root: PathBuf,
    /// Module path -> the file holding it.
    files: BTreeMap<ModPath, PathBuf>,
    /// Module path -> child modules written inline in its file (`pub mod pb { … }`).
    inline: BTreeMap<ModPath, BTreeSet<String>>,
    /// Module path -> the absolute paths its file names.
    named: BTreeMap<ModPath, Vec<ModPath>>,
}

/// The service crate's sources.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The crates checked: the library (`src/`, without the binaries) and the bench's.
fn crates() -> Vec<Crate> {
    vec![
        Crate::read(&src(), "lib.rs", &["main.rs", "bin"]),
        Crate::read(&src().join("bin/cardhouse-bench"), "main.rs", &[]),
    ]
}

impl Crate {
    /// The crate whose root file is `root/root_file`, leaving out `skip` (files or folders
    /// directly in `root`).
    fn read(root: &Path, root_file: &str, skip: &[&str]) -> Crate {
        let mut paths = Vec::new();
        collect(root, root, skip, &mut paths);
        let mut files = BTreeMap::new();
        for rel in paths {
            files.insert(module_of(&rel, root_file), root.join(&rel));
        }
        let mut krate = Crate {
            root: root.to_owned(),
            files,
            inline: BTreeMap::new(),
            named: BTreeMap::new(),
        };
        let modules: Vec<ModPath> = krate.files.keys().cloned().collect();
        for m in &modules {
            let text = std::fs::read_to_string(&krate.files[m]).expect("a source file");
            let code = without_tests(&strip(&text));
            krate
                .inline
                .insert(m.clone(), inline_modules(&code).into_iter().collect());
        }
        for m in &modules {
            let text = std::fs::read_to_string(&krate.files[m]).expect("a source file");
            let code = without_tests(&strip(&text));
            let named = paths_in(&code)
                .into_iter()
                .filter_map(|p| krate.resolve(m, &p))
                .collect();
            krate.named.insert(m.clone(), named);
        }
        krate
    }

    /// Whether `m` is a module of the crate (a file, or written inline in its parent's).
    fn exists(&self, m: &[String]) -> bool {
        self.files.contains_key(m)
            || m.split_last().is_some_and(|(last, parent)| {
                self.inline.get(parent).is_some_and(|i| i.contains(last))
            })
    }

    /// The child modules of folder `m` (its files and sub-folders, and the modules written
    /// inline in its own file).
    fn children(&self, m: &[String]) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = self
            .files
            .keys()
            .filter(|k| k.len() == m.len() + 1 && k.starts_with(m))
            .map(|k| k[m.len()].clone())
            .collect();
        out.extend(self.inline.get(m).cloned().unwrap_or_default());
        out
    }

    /// The absolute path that `path`, written in module `m`, names; `None` outside the crate.
    fn resolve(&self, m: &[String], path: &[String]) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        let mut base: ModPath = match first.as_str() {
            "crate" => Vec::new(),
            "self" => m.to_vec(),
            "super" => m.get(..m.len().checked_sub(1)?)?.to_vec(),
            name if self.exists(&[m, &[name.to_owned()]].concat()) => {
                return Some([m, path].concat());
            }
            _ => return None,
        };
        let mut rest = rest;
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().filter(|s| *s != "*").cloned());
        Some(base)
    }

    /// The crate root and the folders (modules with files of their own): each has a table.
    /// (A module written inline in a folder's file is one of the folder's modules; one
    /// written inline in another file is part of that file.)
    fn folders(&self) -> Vec<ModPath> {
        self.files
            .keys()
            .filter(|m| {
                m.is_empty()
                    || self
                        .files
                        .keys()
                        .any(|k| k.len() > m.len() && k.starts_with(m))
            })
            .cloned()
            .collect()
    }

    /// The calls between the modules of folder `folder` (see the module docs): caller ->
    /// callees, with [`OWN`] for the folder's own file.
    fn calls(&self, folder: &[String]) -> BTreeMap<String, BTreeSet<String>> {
        let children = self.children(folder);
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, named) in &self.named {
            if !m.starts_with(folder) {
                continue;
            }
            let from = m.get(folder.len()).cloned().unwrap_or_else(|| OWN.into());
            for target in named {
                if !target.starts_with(folder) {
                    continue;
                }
                let to = match target.get(folder.len()) {
                    Some(child) if children.contains(child) => child.clone(),
                    _ => OWN.into(),
                };
                if to != from {
                    out.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        out
    }
}

/// Every `.rs` file under `dir`, relative to `root`, but `skip` (directly in `root`).
fn collect(root: &Path, dir: &Path, skip: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        let rel = path.strip_prefix(root).expect("under the root").to_owned();
        if dir == root && skip.iter().any(|s| rel == Path::new(s)) {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, skip, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(rel);
        }
    }
}

/// The module a file holds: `x.rs` and `x/mod.rs` are `x`; the root file is the root.
fn module_of(rel: &Path, root_file: &str) -> ModPath {
    if rel == Path::new(root_file) {
        return Vec::new();
    }
    let mut parts: ModPath = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// `text` without comments, and with every string and character literal emptied.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (i == 0 || !ident(c[i - 1]))
            && c[i + 1..].iter().find(|&&x| x != '#') == Some(&'"')
        {
            // A raw string: r"…", r#"…"#, …: up to a quote followed by as many hashes.
            let hashes = c[i + 1..].iter().take_while(|&&x| x == '#').count();
            i += 2 + hashes;
            while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')))
            {
                i += 1;
            }
            i += 1 + hashes;
            out.push_str("\"\"");
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' && next == Some('\\') {
            // An escaped character literal: '\'', '\n', '\u{…}'.
            i += 3;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// `code` without its `#[cfg(test)] mod name { … }` blocks (tests may call anything).
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned();
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = out[at + "#[cfg(test)]".len()..].trim_start();
        let is_mod = after.starts_with("mod ") && {
            let head: String = after
                .chars()
                .take_while(|&c| c != ';' && c != '{')
                .collect();
            after[head.len()..].starts_with('{')
        };
        if !is_mod {
            // Another item under cfg(test): keep it, look further.
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        }
        let open = at + out[at..].find('{').expect("a brace");
        let mut depth = 0;
        let mut end = out.len();
        for (i, ch) in out[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// The modules written inline: `mod name {`.
fn inline_modules(code: &str) -> Vec<String> {
    let words: Vec<&str> = code.split_whitespace().collect();
    words
        .windows(3)
        .filter(|w| w[0] == "mod" && (w[2] == "{" || w[1].ends_with('{')))
        .map(|w| w[1].trim_end_matches('{').to_owned())
        .collect()
}

/// Every path `code` names: `use` trees (expanded) and `a::b::c` paths in code.
fn paths_in(code: &str) -> Vec<ModPath> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut i = 0;
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < code.len() {
        if (i == 0 || !ident(bytes[i - 1]))
            && code[i..].starts_with("use")
            && code[i + 3..].starts_with(char::is_whitespace)
        {
            let end = i + code[i..].find(';').expect("a `use` ends");
            let tree: String = drop_renames(&code[i + 3..end])
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            out.extend(expand(&tree).iter().map(|p| split_path(p)));
            i = end + 1;
            continue;
        }
        let ch = code[i..].chars().next().expect("a char");
        rest.push(ch);
        i += ch.len_utf8();
    }
    // Paths in code: runs of identifier characters and `::`.
    let mut token = String::new();
    for ch in rest.chars().chain(std::iter::once(' ')) {
        if ch.is_alphanumeric() || ch == '_' || ch == ':' {
            token.push(ch);
            continue;
        }
        let path = split_path(token.trim_matches(':'));
        if path.len() > 1 {
            out.push(path);
        }
        token.clear();
    }
    out
}

/// `a::b::c` as segments.
fn split_path(p: &str) -> ModPath {
    p.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A `use` tree without its renames (`x as y` -> `x`).
fn drop_renames(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut out = String::new();
    let mut k = 0;
    while k < words.len() {
        if words[k] == "as" && k + 1 < words.len() {
            // Keep what follows the new name (`y},` -> `},`).
            let renamed = words[k + 1];
            let name_len = renamed
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(renamed.len());
            out.push_str(&renamed[name_len..]);
            k += 2;
            continue;
        }
        out.push(' ');
        out.push_str(words[k]);
        k += 1;
    }
    out
}

/// `a::{b, c::{d, self}}` -> `a::b`, `a::c::d`, `a::c` (whitespace removed).
fn expand(tree: &str) -> Vec<String> {
    let Some(brace) = tree.find('{') else {
        return vec![tree.to_owned()];
    };
    let prefix = &tree[..brace];
    let inner = &tree[brace + 1..tree.rfind('}').expect("a closing brace")];
    let mut parts = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for ch in inner.chars() {
        match ch {
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        cur.push(ch);
    }
    parts.push(cur);
    let mut out = Vec::new();
    for p in parts.iter().filter(|p| !p.is_empty()) {
        for e in expand(p) {
            if e == "self" {
                out.push(prefix.trim_end_matches(':').to_owned());
            } else {
                out.push(format!("{prefix}{e}"));
            }
        }
    }
    out
}

/// A module table: row names -> the modules they may call.
struct Table {
    rows: BTreeMap<String, BTreeSet<String>>,
}

/// A table's name of a module: `x.rs`, `x/`, `x` or `x::item` -> `x`; the folder's own
/// file (`mod.rs`, `lib.rs`, `main.rs`) -> [`OWN`].
fn name_in_table(text: &str) -> String {
    let first = text.split("::").next().unwrap_or_default();
    let name = first.trim_end_matches('/').trim_end_matches(".rs");
    match name {
        "mod" | "lib" | "main" => OWN.to_owned(),
        other => other.to_owned(),
    }
}

/// The backticked words of a table cell.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The module table in the docs of `file` (its `//!` lines), if any.
fn table_in(file: &Path) -> Result<Option<Table>, String> {
    let text = std::fs::read_to_string(file).expect("a source file");
    let docs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .map(str::trim)
        .collect();
    let Some(header) = docs
        .iter()
        .position(|l| l.starts_with('|') && l.to_lowercase().contains("may call"))
    else {
        return Ok(None);
    };
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    let columns = cells(docs[header]);
    let may = columns
        .iter()
        .position(|c| c.eq_ignore_ascii_case("may call"))
        .ok_or("no `may call` column")?;
    let mut rows = BTreeMap::new();
    for line in docs[header + 2..].iter().take_while(|l| l.starts_with('|')) {
        let row = cells(line);
        if row.len() != columns.len() {
            return Err(format!("a row of {} cells: {line}", row.len()));
        }
        let names = backticked(&row[0]);
        if names.is_empty() {
            return Err(format!("a row that names no module: {line}"));
        }
        let cell = row[may].as_str();
        let calls: BTreeSet<String> = if matches!(cell, "—" | "-") {
            BTreeSet::new()
        } else {
            let mut calls = BTreeSet::new();
            for item in cell.split(',').map(str::trim) {
                let words = backticked(item);
                if words.len() != 1 || item != format!("`{}`", words[0]) {
                    return Err(format!(
                        "`may call` holds `{item}`: only backticked module names (or —)"
                    ));
                }
                calls.insert(name_in_table(&words[0]));
            }
            calls
        };
        for n in names {
            if rows.insert(name_in_table(&n), calls.clone()).is_some() {
                return Err(format!("{n} has two rows"));
            }
        }
    }
    Ok(Some(Table { rows }))
}

/// What is wrong with every folder's table of `krate`.
fn problems(krate: &Crate) -> Vec<String> {
    let mut all = Vec::new();
    for folder in krate.folders() {
        let file = &krate.files[&folder];
        let shown = file.strip_prefix(&krate.root).unwrap_or(file).display();
        let shown = format!("{}: {shown}", krate.root.display());
        let mut modules = krate.children(&folder);
        modules.insert(OWN.to_owned());
        let calls = krate.calls(&folder);
        let mut out = folder_problems(&shown, file, &modules, &calls);
        if let Some(circle) = circle(&calls) {
            out.push(format!(
                "{shown}: these modules call each other in a circle: {}",
                circle.join(" -> ")
            ));
        }
        if !out.is_empty() {
            all.extend(out);
            // What the code calls, to write the table from.
            for m in &modules {
                let listed: Vec<String> = calls
                    .get(m)
                    .map(|c| c.iter().map(|c| format!("`{c}`")).collect())
                    .unwrap_or_default();
                let listed = if listed.is_empty() {
                    "—".to_owned()
                } else {
                    listed.join(", ")
                };
                all.push(format!("    (the code: `{m}` calls {listed})"));
            }
        }
    }
    all
}

/// A circle of calls among the modules of a folder (the folder's own file aside: it
/// declares its modules and may re-export them), if there is one.
fn circle(calls: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        calls: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut circle = path[at..].to_vec();
            circle.push(m.to_owned());
            return Some(circle);
        }
        if m == OWN || !done.insert(m.to_owned()) {
            return None;
        }
        path.push(m.to_owned());
        for next in calls.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, calls, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    calls
        .keys()
        .find_map(|m| visit(m, calls, &mut Vec::new(), &mut done))
}

/// What is wrong with the table in `file` of the folder holding `modules`, which make
/// `calls`.
fn folder_problems(
    shown: &str,
    file: &Path,
    modules: &BTreeSet<String>,
    calls: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let table = match table_in(file) {
        Ok(Some(t)) => t,
        Ok(None) => return vec![format!("{shown}: no module table with a `may call` column")],
        Err(e) => return vec![format!("{shown}: {e}")],
    };
    let mut out = Vec::new();
    for m in modules {
        let Some(listed) = table.rows.get(m) else {
            out.push(format!("{shown}: `{m}` is missing from the table"));
            continue;
        };
        let actual = calls.get(m).cloned().unwrap_or_default();
        for extra in listed.difference(&actual) {
            out.push(format!(
                "{shown}: `{m}` may call `{extra}`, says the table, but does not"
            ));
        }
        for missing in actual.difference(listed) {
            out.push(format!(
                "{shown}: `{m}` calls `{missing}`, which the table does not list"
            ));
        }
    }
    for row in table.rows.keys() {
        if !modules.contains(row) {
            out.push(format!("{shown}: the table names `{row}`, no module here"));
        }
    }
    out
}

#[test]
fn every_module_table_lists_every_module_and_exactly_its_calls() {
    let mut all = Vec::new();
    for krate in crates() {
        all.extend(problems(&krate));
    }
    assert!(
        all.is_empty(),
        "the module tables and the code disagree:\n{}",
        all.join("\n")
    );
}

/// The checker sees what it must: a stripped comment or string names nothing, `use` trees
/// expand, and each kind of path resolves.
#[test]
fn the_checker_reads_paths_as_written() {
    let code = strip(
        "use crate::a::{b as bee, c::{d, self}}; // crate::x::y\n\
         let s = \"crate::z::w\"; let c = '\"'; let l: &'static str = r#\"crate::q::r\"#;\n\
         super::e::f(); self::g::h(); i::j(); #[cfg(test)] mod tests { use crate::t::u; }",
    );
    let code = without_tests(&code);
    let paths: BTreeSet<String> = paths_in(&code).iter().map(|p| p.join("::")).collect();
    let expected: BTreeSet<String> = [
        "crate::a::b",
        "crate::a::c::d",
        "crate::a::c",
        "super::e::f",
        "self::g::h",
        "i::j",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(paths, expected);
}
