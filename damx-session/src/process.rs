//! The programs a session starts (Hub engines, the referee's DXP programs): each in a process
//! group of its own, and ended with everything it started.
//!
//! A program in its own group does not get the terminal's Ctrl-C: damx gets it, ends the game
//! properly and then the program. And a program is often a wrapper (a shell script that starts
//! the engine), whose engine would outlive a kill of the wrapper alone, holding its output
//! open and a reader thread with it: on Unix the whole group is killed.
//!
//! The programs started with [`spawn`] are known until they are reaped ([`try_wait`],
//! [`kill`]), so that a process that must end at once ([`kill_all`], the third signal) ends
//! them too instead of leaving them running.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The programs started with [`spawn`] and not yet reaped, by process id (each the leader of
/// its group). A reaped program's number may be given to a new process: it leaves the list
/// before (under the same lock as) the reaping, so [`kill_all`] never signals a stranger.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn running() -> MutexGuard<'static, Vec<u32>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts `command` in a process group of its own ([`own_group`]) and keeps it in the list of
/// running programs.
pub(crate) fn spawn(command: &mut Command) -> io::Result<Child> {
    own_group(command);
    let mut running = running();
    let child = command.spawn()?;
    running.push(child.id());
    Ok(child)
}

/// [`Child::try_wait`], taking a program that has ended off the list of running ones. On
/// Linux, a program that has ended takes the rest of its group with it (a helper a wrapper
/// script left running), killed before the program is reaped, while its number is surely
/// still its group's.
pub(crate) fn try_wait(child: &mut Child) -> io::Result<Option<ExitStatus>> {
    let mut running = running();
    #[cfg(target_os = "linux")]
    match peek(child) {
        Some(true) => kill_group(child),
        // Still running when looked at: it is not reaped now even if it ends in the meantime,
        // or its group would be left behind.
        Some(false) => return Ok(None),
        None => {}
    }
    let status = child.try_wait();
    if matches!(status, Ok(Some(_))) {
        running.retain(|&pid| pid != child.id());
    }
    status
}

/// Whether `child` has ended (`Some(true)`) or still runs (`Some(false)`), without reaping
/// it; `None` once it has been reaped (its number may then be another process's).
#[cfg(target_os = "linux")]
fn peek(child: &Child) -> Option<bool> {
    use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
    let ended = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    waitid(WaitId::Pid(Pid::from_child(child)), ended)
        .ok()
        .map(|status| status.is_some())
}

/// Kills the process group that `child` leads (Unix; elsewhere nothing). Only while `child`
/// has not been reaped: its number is then surely still its group's.
fn kill_group(child: &Child) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Kills every program started with [`spawn`] that has not been reaped, with its group (Unix;
/// elsewhere nothing): for a process about to exit at once. Never waits: if the list is busy
/// (a program being reaped), it gives up.
pub(crate) fn kill_all() {
    let running = match RUNNING.try_lock() {
        Ok(running) => running,
        Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    #[cfg(unix)]
    for &pid in running.iter() {
        use rustix::process::{Pid, Signal, kill_process_group};
        if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
    #[cfg(not(unix))]
    let _ = running;
}

/// Makes the program that `command` starts the leader of a process group of its own (Unix;
/// elsewhere nothing).
pub(crate) fn own_group(command: &mut Command) {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    #[cfg(not(unix))]
    let _ = command;
}

/// Kills `child` and, on Unix, every process of its group (it must have been started with
/// [`own_group`]), then reaps it.
///
/// The group is signalled only while the program itself has not been reaped: its number is
/// then surely still its group's, never a later process's that got the number back.
pub(crate) fn kill(child: &mut Child) {
    let mut running = running();
    // On Linux also a program that has just ended by itself (not yet reaped): the helpers it
    // left running end with it.
    #[cfg(target_os = "linux")]
    let unreaped = peek(child).is_some();
    #[cfg(not(target_os = "linux"))]
    let unreaped = matches!(child.try_wait(), Ok(None));
    if unreaped {
        kill_group(child);
    }
    let _ = child.kill();
    // Off the list before it is reaped (see RUNNING); the wait, short after a kill, needs no
    // lock.
    running.retain(|&pid| pid != child.id());
    drop(running);
    let _ = child.wait();
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    use super::*;

    /// Whether the process `pid` is gone (or a zombie waiting for its parent to reap it).
    fn gone(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        }
    }

    /// A program is on the list of running ones from its start until it is reaped, whether
    /// it ends by itself or is killed: the list never names a number that may be reused.
    #[test]
    fn the_running_programs_are_known_until_reaped() {
        let listed = |child: &Child| running().contains(&child.id());
        let mut quick = spawn(Command::new("true").stdout(Stdio::null())).unwrap();
        assert!(listed(&quick));
        let deadline = Instant::now() + Duration::from_secs(10);
        while try_wait(&mut quick).unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!listed(&quick));
        let mut slow = spawn(Command::new("sleep").arg("300")).unwrap();
        assert!(listed(&slow));
        assert!(try_wait(&mut slow).unwrap().is_none());
        kill(&mut slow);
        assert!(!listed(&slow));
    }

    /// Spawns a program that starts a helper (`sleep 300`), prints its process number and
    /// exits at once: the program and the helper's number.
    fn spawn_leaving_a_helper() -> (Child, u32) {
        let mut command = Command::new("sh");
        command
            .args(["-c", "sleep 300 & echo $!"])
            .stdout(Stdio::piped());
        let mut child = spawn(&mut command).unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (child, line.trim().parse().unwrap())
    }

    /// A helper that a program leaves running when it exits by itself ends with it, when the
    /// program is found to have ended.
    #[test]
    fn a_helper_ends_with_a_program_that_exits() {
        let (mut child, helper) = spawn_leaving_a_helper();
        let deadline = Instant::now() + Duration::from_secs(10);
        while try_wait(&mut child).unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        while !gone(helper) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(gone(helper), "the helper {helper} outlived its program");
    }

    /// A helper that a program leaves running when it exits by itself ends with it when the
    /// program, ended but not yet reaped, is killed.
    #[test]
    fn a_helper_ends_with_an_ended_program_that_is_killed() {
        let (mut child, helper) = spawn_leaving_a_helper();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !gone(child.id()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!gone(helper));
        kill(&mut child);
        while !gone(helper) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(gone(helper), "the helper {helper} outlived its program");
    }

    /// A wrapper script's engine (a process the program started) dies with the program.
    #[test]
    fn a_wrappers_engine_dies_with_it() {
        let mut command = Command::new("sh");
        command
            .args(["-c", "sleep 300 & echo $!; wait"])
            .stdout(Stdio::piped());
        own_group(&mut command);
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let engine: u32 = line.trim().parse().unwrap();
        assert!(!gone(engine));
        kill(&mut child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !gone(engine) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(gone(engine), "the engine {engine} outlived its wrapper");
    }
}
