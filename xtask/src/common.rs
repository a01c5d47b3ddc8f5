//! What the tasks that run other programs share: the workspace's paths, child processes under
//! hard time limits, and a Python virtual environment with one pinned package.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// A child process that is killed if the task ends before it does.
pub(crate) struct Guard(pub(crate) Child);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

pub(crate) fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The Python of the venv `<target>/<venv>`, made with `python3` (or `$PYTHON`) if missing,
/// with `package==version` from PyPI installed in it unless that version is there already.
pub(crate) fn python_venv(
    target: &Path,
    venv: &str,
    package: &str,
    version: &str,
) -> anyhow::Result<PathBuf> {
    let venv = target.join(venv);
    let python = venv.join("bin/python");
    if !python.exists() {
        let system = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
        println!("creating the Python venv {}", venv.display());
        run_bounded(
            Command::new(system).arg("-m").arg("venv").arg(&venv),
            Duration::from_secs(120),
            "creating the Python venv",
        )?;
    }
    let installed = Command::new(&python)
        .arg("-c")
        .arg(format!(
            "import importlib.metadata as m; print(m.version('{package}'))"
        ))
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned());
    if installed.as_deref() != Some(version) {
        println!("installing {package} {version} into {}", venv.display());
        run_bounded(
            Command::new(&python).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                &format!("{package}=={version}"),
            ]),
            Duration::from_secs(600),
            &format!("installing {package}"),
        )?;
    }
    Ok(python)
}

/// Runs `command` to the end, killing it after `limit`.
pub(crate) fn run_bounded(
    command: &mut Command,
    limit: Duration,
    what: &str,
) -> anyhow::Result<()> {
    let mut child = Guard(
        command
            .spawn()
            .with_context(|| format!("{what}: cannot start"))?,
    );
    match wait_exit(&mut child.0, limit) {
        Some(status) if status.success() => Ok(()),
        Some(status) => bail!("{what} failed ({status})"),
        None => bail!("{what} took longer than {limit:?} and was stopped"),
    }
}

/// Waits up to `limit` for `child` to exit; kills it and returns `None` past the limit.
pub(crate) fn wait_exit(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// Runs this xtask again, optimised (`cargo run --release`), with the same arguments,
/// and returns how it ended. The engine of a debug build (overflow checks, many code
/// generation units, no link-time optimisation) plays about 1.7 times slower, so self-play
/// at a game clock would play a shorter time control than it says, and the training stages
/// would take longer for the same files.
pub(crate) fn rerun_optimised(args: &[String]) -> anyhow::Result<ExitStatus> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let task = args.first().map_or("xtask", String::as_str);
    eprintln!("{task}: running the optimised build of xtask");
    Command::new(cargo)
        .current_dir(workspace_root())
        // Not quiet: a first optimised build takes minutes, and cargo shows its progress.
        .args(["run", "--release", "--package", "xtask", "--"])
        .args(args)
        .status()
        .context("running cargo")
}

/// Builds the release `damx` for `task` (which says so); returns its path.
pub(crate) fn build_damx(root: &Path, target: &Path, task: &str) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("{task}: building damx (release)");
    run_bounded(
        Command::new(cargo).current_dir(root).args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "damx-cli",
            "--bin",
            "damx",
        ]),
        Duration::from_secs(1800),
        "building damx",
    )?;
    Ok(target.join("release/damx"))
}
