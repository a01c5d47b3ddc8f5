//! The programs a session starts (Hub engines, the referee's DXP programs): each in a process
//! group of its own, and ended with everything it started.
//!
//! A program in its own group does not get the terminal's Ctrl-C: damx gets it, ends the game
//! properly and then the program. And a program is often a wrapper (a shell script that starts
//! the engine), whose engine would outlive a kill of the wrapper alone, holding its output
//! open and a reader thread with it: on Unix the whole group is killed.

use std::process::{Child, Command};

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
    #[cfg(unix)]
    if matches!(child.try_wait(), Ok(None)) {
        use rustix::process::{Pid, Signal, kill_process_group};
        let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    }
    let _ = child.kill();
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
