//! The tasks' command lines: options as `--name value`, and for the tasks that read files, the
//! remaining words as file names. One parser for all, so that every task refuses an unknown
//! option or a missing value with the same message.

use std::path::PathBuf;

use anyhow::{Context, bail, ensure};

/// A task's options, in the order given, and its files.
pub(crate) struct Options<'a> {
    values: Vec<(&'a str, &'a str)>,
    pub(crate) files: Vec<PathBuf>,
}

impl<'a> Options<'a> {
    /// Reads `--name value` options of the `known` names; every other word is a file.
    pub(crate) fn parse(args: &'a [String], known: &[&str]) -> anyhow::Result<Options<'a>> {
        let mut values = Vec::new();
        let mut files = Vec::new();
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            if let Some(name) = arg.strip_prefix("--") {
                ensure!(
                    known.contains(&name),
                    "unknown option `--{name}` (known: --{})",
                    known.join(", --")
                );
                let value = rest
                    .next()
                    .with_context(|| format!("`--{name}` needs a value"))?;
                values.push((name, value.as_str()));
            } else {
                files.push(PathBuf::from(arg));
            }
        }
        Ok(Options { values, files })
    }

    /// The value given last for `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'a str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// The number given for `name`, or `default` where it is not given.
    pub(crate) fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> anyhow::Result<T> {
        match self.get(name) {
            None => Ok(default),
            Some(text) => text
                .parse()
                .ok()
                .with_context(|| format!("--{name} wants a number, got `{text}`")),
        }
    }
}

/// Reads `--name value` options of the `known` names, in the order given, for a task that
/// takes no files: any other word is refused.
pub(crate) fn named<'a>(
    args: &'a [String],
    known: &[&str],
) -> anyhow::Result<Vec<(&'a str, &'a str)>> {
    let options = Options::parse(args, known)?;
    if let Some(file) = options.files.first() {
        bail!("unexpected argument `{}`", file.display());
    }
    Ok(options.values)
}

/// The value of `--name` as a range of absolute scores in centi-men, `LOW` and `HIGH` joined
/// by `separator`, with `0 <= LOW <= HIGH`.
pub(crate) fn centi_men_range(
    name: &str,
    text: &str,
    separator: &str,
) -> anyhow::Result<(i32, i32)> {
    let parsed = text
        .split_once(separator)
        .and_then(|(low, high)| Some((low.trim().parse().ok()?, high.trim().parse().ok()?)));
    match parsed {
        Some((low, high)) if 0 <= low && low <= high => Ok((low, high)),
        _ => bail!(
            "--{name} wants LOW{separator}HIGH in centi-men with 0 <= LOW <= HIGH, got `{text}`"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    /// Options keep their order, the last value of a name wins, other words are files.
    #[test]
    fn options_and_files() {
        let args = words("--out a.dxw x.pos --epochs 3 y.pos --out b.dxw");
        let options = Options::parse(&args, &["out", "epochs"]).unwrap();
        assert_eq!(options.get("out"), Some("b.dxw"));
        assert_eq!(options.number("epochs", 30).unwrap(), 3);
        assert_eq!(options.number("lr", 2.5).unwrap(), 2.5);
        assert_eq!(
            options.files,
            [PathBuf::from("x.pos"), PathBuf::from("y.pos")]
        );
        let args = words("--games 4 --seed 9");
        let pairs = named(&args, &["games", "seed"]).unwrap();
        assert_eq!(pairs, [("games", "4"), ("seed", "9")]);
    }

    /// An unknown name, a missing value, a word where no files are taken and a value that is
    /// not a number are refused, each saying which.
    #[test]
    fn refusals() {
        let error = |result: anyhow::Result<_>| format!("{:#}", result.err().unwrap());
        let unknown = error(named(&words("--gmaes 4"), &["games", "seed"]).map(drop));
        assert!(unknown.contains("`--gmaes`") && unknown.contains("--games, --seed"));
        let missing = error(named(&words("--games"), &["games"]).map(drop));
        assert!(missing.contains("`--games` needs a value"), "{missing}");
        let stray = error(named(&words("--games 4 extra"), &["games"]).map(drop));
        assert!(stray.contains("unexpected argument `extra`"), "{stray}");
        let args = words("--games four");
        let options = Options::parse(&args, &["games"]).unwrap();
        let text = error(options.number::<u32>("games", 1).map(drop));
        assert!(
            text.contains("--games wants a number, got `four`"),
            "{text}"
        );
    }
}
