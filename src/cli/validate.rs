//! `fray validate PATH...`: checks level files.
//!
//! Every problem goes to stdout as `file:line:col: error: message` (the format editors and CI
//! annotate), a one-line summary to stderr. Exit status 1 if any file has an error, else 0.
//! A directory argument checks every `*.ron` file directly inside it, in name order.

use crate::rules::level::{self, Diagnostic};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What checking a set of paths found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The level files checked, in the order checked.
    pub files: Vec<PathBuf>,
    /// Every problem, file by file.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// How many checked files have at least one problem.
    pub fn failed_files(&self) -> usize {
        let mut names: Vec<&str> = self.diagnostics.iter().map(|d| d.file.as_str()).collect();
        names.dedup();
        names.len()
    }

    /// The stderr summary line.
    pub fn summary(&self) -> String {
        let files = plural(self.files.len(), "level file", "level files");
        match self.diagnostics.len() {
            0 => format!("{files} checked, no errors"),
            n => format!(
                "{files} checked, {} in {}",
                plural(n, "error", "errors"),
                plural(self.failed_files(), "file", "files")
            ),
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Checks files and directories (see the module docs) without printing anything.
pub fn check_paths(paths: &[PathBuf]) -> Report {
    let mut report = Report::default();
    for path in paths {
        if path.is_dir() {
            match ron_files(path) {
                Ok(files) if files.is_empty() => report.diagnostics.push(at_start(
                    path,
                    "this directory holds no level files (*.ron)".to_string(),
                )),
                Ok(files) => {
                    for file in files {
                        check_file(&file, &mut report);
                    }
                }
                Err(e) => report
                    .diagnostics
                    .push(at_start(path, format!("cannot read the directory: {e}"))),
            }
        } else {
            check_file(path, &mut report);
        }
    }
    report
}

/// The `*.ron` files directly inside a directory, sorted by name.
fn ron_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron") && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

fn check_file(path: &Path, report: &mut Report) {
    if let Err(diagnostics) = level::load_path(path) {
        report.diagnostics.extend(diagnostics);
    }
    report.files.push(path.to_path_buf());
}

fn at_start(path: &Path, message: String) -> Diagnostic {
    Diagnostic {
        file: path.display().to_string(),
        line: 1,
        col: 1,
        message,
    }
}

/// Runs `fray validate`: prints the diagnostics and the summary, returns the exit status.
pub fn run(paths: &[PathBuf]) -> ExitCode {
    if paths.is_empty() {
        eprintln!("fray validate: name at least one level file or directory");
        return ExitCode::FAILURE;
    }
    let report = check_paths(paths);
    // Write errors (a closed pipe, say) must not panic; the exit status still tells.
    let mut out = std::io::stdout().lock();
    for d in &report.diagnostics {
        let _ = writeln!(out, "{d}");
    }
    let _ = out.flush();
    let _ = writeln!(std::io::stderr(), "{}", report.summary());
    if report.diagnostics.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fray-validate-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn a_directory_checks_every_ron_file_in_name_order() {
        let dir = scratch("dir");
        let bad = "(name: \"x\")";
        std::fs::write(dir.join("b.ron"), bad).expect("write");
        std::fs::write(dir.join("a.ron"), bad).expect("write");
        std::fs::write(dir.join("notes.txt"), "not a level").expect("write");
        let report = check_paths(std::slice::from_ref(&dir));
        assert_eq!(report.files, vec![dir.join("a.ron"), dir.join("b.ron")]);
        assert_eq!(report.diagnostics.len(), 2);
        assert!(report.diagnostics[0].file.ends_with("a.ron"));
        assert!(report.diagnostics[1].file.ends_with("b.ron"));
        assert_eq!(report.failed_files(), 2);
        assert_eq!(
            report.summary(),
            "2 level files checked, 2 errors in 2 files"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_paths_and_empty_directories_are_errors() {
        let dir = scratch("empty");
        let missing = dir.join("nope.ron");
        let report = check_paths(&[dir.clone(), missing.clone()]);
        let lines: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            format!(
                "{}:1:1: error: this directory holds no level files (*.ron)",
                dir.display()
            )
        );
        assert!(
            lines[1].starts_with(&format!(
                "{}:1:1: error: cannot read the file",
                missing.display()
            )),
            "{}",
            lines[1]
        );
        assert_eq!(run(&[missing]), ExitCode::FAILURE);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_shipped_levels_pass() {
        let levels = crate::repo_dir().join("levels");
        let report = check_paths(&[levels]);
        assert!(report.files.len() >= 6, "{:?}", report.files);
        assert_eq!(report.diagnostics, vec![], "{}", report.summary());
        assert!(report.summary().ends_with("checked, no errors"));
    }
}
