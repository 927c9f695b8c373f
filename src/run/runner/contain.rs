//! Nothing a check starts outlives it: the processes a check leaves behind,
//! also those that left its process group (`setsid`, `setpgid`, a double
//! fork), are found, killed, reaped and listed in its evidence's `leaked`.
//!
//! On Linux run-check is a child subreaper (`reaper`): every orphan of a
//! check is re-parented to run-check, so after a check's main process has
//! ended and its group was killed, whatever is left of it is among
//! run-check's own children that are no running check's main process. No
//! /proc scan when nothing escaped: reading run-check's own children costs a
//! few microseconds per check. Each check's processes inherit an
//! environment cookie, `RUN_CHECK_RUN_ID=<run>-<index>` (as Jenkins's
//! ProcessTreeKiller does), which says whose an orphan is. A process that
//! scrubbed its environment is attributed by its start time: to the checks
//! that were running when it started; while one of them still runs it is
//! left alone, and when they have all ended it is killed and listed under
//! the check whose end revealed it, if that is one of them, else under the
//! one of them that ended last. With `--jobs 1` that is always exact.
//!
//! A check with `leave_running = true` keeps what it left at its own end
//! (listed, not killed). A process that turns up later claiming that check's
//! cookie is killed: a cookie is easy to copy, what was recorded at the end
//! is not. Everything else still running at the end of the run is killed
//! then, before the last snapshot.
//!
//! Elsewhere the process group (Unix) or the Job Object (Windows, which
//! lists its leftovers itself) is what holds a check's processes.

// The attribution acts on Linux only; elsewhere it is compiled (and unit
// tested) all the same.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
#[cfg(target_os = "linux")]
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use super::reaper;
use run_check_documents::evidence::Leaked;

/// The environment variable every process of a check inherits:
/// `<run>-<index>`, `<run>` random for each run, `<index>` the check's
/// position in the plan.
pub(crate) const COOKIE: &str = "RUN_CHECK_RUN_ID";

/// How long one sweep goes on killing and reaping before it gives up (a
/// process in uninterruptible sleep cannot die at once).
#[cfg(target_os = "linux")]
const SWEEP_LIMIT: Duration = Duration::from_secs(2);

/// The containment of one run's checks.
#[derive(Debug)]
pub(crate) struct Containment {
    /// This run's random part of the cookie.
    run: String,
    /// Whether run-check is a child subreaper (Linux).
    reaper: bool,
    state: Mutex<State>,
}

/// The books, behind one lock: a sweep reads run-check's children while no
/// check is between its spawn and the registration of its pid.
#[derive(Debug, Default)]
struct State {
    /// One per planned check.
    slots: Vec<Slot>,
    /// The unreaped main processes of running checks: never touched here.
    mains: Vec<u32>,
    /// Processes already judged, by pid and start time.
    marks: HashMap<(u32, u64), Mark>,
    /// The check that ended last.
    last_ended: Option<usize>,
}

#[derive(Debug, Default)]
struct Slot {
    leave_running: bool,
    /// When its process started and ended, in clock ticks since boot.
    started: Option<u64>,
    ended: Option<u64>,
    leaked: Vec<Leaked>,
}

/// What was decided about one process: whose it is, and whether it stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    owner: Option<usize>,
    keep: bool,
}

/// Whether a process can be judged now.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// It may belong to a check that still runs.
    Defer,
    /// Its owner is known (or no check could own it) and has ended.
    Judged(Mark),
}

impl Containment {
    /// The containment of a plan whose checks have these `leave_running`
    /// settings. Makes run-check a child subreaper on Linux (once).
    pub(crate) fn new(leave_running: impl IntoIterator<Item = bool>) -> Containment {
        let slots = leave_running
            .into_iter()
            .map(|leave_running| Slot {
                leave_running,
                ..Slot::default()
            })
            .collect();
        Containment {
            run: run_id(),
            reaper: subreaper(),
            state: Mutex::new(State {
                slots,
                ..State::default()
            }),
        }
    }

    /// The cookie value of check `index`.
    pub(crate) fn cookie(&self, index: usize) -> String {
        format!("{}-{index}", self.run)
    }

    /// The check of a cookie value of this run.
    fn index_of(&self, cookie: &str) -> Option<usize> {
        let index = cookie.strip_prefix(&self.run)?.strip_prefix('-')?;
        index.parse().ok()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Check `index` is about to start its process: the books stay locked
    /// until `Starting::spawned` names it (or the spawn failed).
    pub(crate) fn starting(&self, index: usize) -> Starting<'_> {
        let mut state = self.lock();
        if let Some(slot) = state.slots.get_mut(index) {
            slot.started = Some(now_ticks());
            // A retry (`retries`) runs again: its check is running.
            slot.ended = None;
        }
        Starting {
            state,
            index,
            spawned: false,
        }
    }

    /// Check `index` was stopped (timeout or cancellation) while its main
    /// process still runs: what already escaped it goes now.
    pub(crate) fn stopping(&self, index: usize) {
        self.sweep(Some(index), || {});
    }

    /// Check `index`'s main process `main` has ended and was reaped: what
    /// is left of it goes now (or stays, listed, with `leave_running`).
    /// `kill_group` kills its process group: called once what the group
    /// holds is listed (its members are run-check's orphans now, or below
    /// them), so the listing does not depend on how fast they die.
    pub(crate) fn ended(&self, index: usize, main: u32, kill_group: impl FnOnce()) {
        {
            let mut state = self.lock();
            state.mains.retain(|&pid| pid != main);
            if let Some(slot) = state.slots.get_mut(index) {
                slot.ended = Some(now_ticks());
            }
            state.last_ended = Some(index);
        }
        self.sweep(Some(index), kill_group);
    }

    /// The end of the run: every process left, but those kept by
    /// `leave_running`, is killed. Returns each check's `leaked`.
    pub(crate) fn finish(&self) -> Vec<Vec<Leaked>> {
        self.sweep(None, || {});
        let mut state = self.lock();
        state
            .slots
            .iter_mut()
            .map(|slot| std::mem::take(&mut slot.leaked))
            .collect()
    }

    /// Kills (or keeps) the orphans that can be judged now: `ending` is the
    /// check whose end (or stop) this is, `None` the end of the run;
    /// `between` runs once, after the first pass.
    fn sweep(&self, ending: Option<usize>, between: impl FnOnce()) {
        #[cfg(target_os = "linux")]
        if self.reaper {
            return self.sweep_children(ending, between);
        }
        let _ = (ending, self.reaper);
        between();
    }

    /// Linux: judges run-check's children that are no check's main process,
    /// kills those that go and reaps the dead, pass after pass (a killed
    /// process's children become run-check's), until a pass kills nothing.
    #[cfg(target_os = "linux")]
    fn sweep_children(&self, ending: Option<usize>, between: impl FnOnce()) {
        let deadline = Instant::now() + SWEEP_LIMIT;
        let mut pause = Duration::from_micros(200);
        let mut between = Some(between);
        loop {
            // A pass that killed or reaped something changed the tree: a
            // killed process's children may have become run-check's since
            // the pass read them; the next pass looks again.
            let mut changed = false;
            {
                let mut state = self.lock();
                // The end of the run looks at every thread's children (a
                // last safety net); a check's end, where cost matters, at
                // the main thread's, where orphans go.
                let children = match ending {
                    Some(_) => reaper::orphans(),
                    None => reaper::children("self"),
                };
                for pid in children {
                    if state.mains.contains(&pid) {
                        continue;
                    }
                    let Some(stat) = reaper::stat(pid) else {
                        continue;
                    };
                    if stat.zombie {
                        // An orphan that ended: run-check inherited it. Only
                        // run-check's checks start processes while checks
                        // run, so no helper's status is taken here.
                        changed |= reaper::reap(pid);
                        continue;
                    }
                    let mark = match state.marks.get(&(pid, stat.start)) {
                        Some(mark) => *mark,
                        None => match self.judge(&state, pid, stat.start, ending) {
                            Verdict::Defer => continue,
                            Verdict::Judged(mark) => {
                                state.record(pid, mark);
                                mark
                            }
                        },
                    };
                    if !mark.keep {
                        reaper::kill(pid);
                        changed = true;
                    }
                }
            }
            if let Some(between) = between.take() {
                between();
            }
            if !changed || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// Whose the unjudged orphan `pid` (started at `start`) is.
    #[cfg(target_os = "linux")]
    fn judge(&self, state: &State, pid: u32, start: u64, ending: Option<usize>) -> Verdict {
        let cookie = reaper::environ_value(pid, COOKIE).and_then(|value| self.index_of(&value));
        state.judge(cookie, start, ending)
    }
}

impl State {
    /// Whether check `k` still runs (the ending one counts as ended).
    fn running(&self, k: usize, ending: Option<usize>) -> bool {
        let slot = &self.slots[k];
        ending != Some(k) && slot.started.is_some() && slot.ended.is_none()
    }

    /// Judges an orphan that carries the cookie of check `cookie` (of this
    /// run), or none, and started at `start` (clock ticks since boot).
    fn judge(&self, cookie: Option<usize>, start: u64, ending: Option<usize>) -> Verdict {
        let fallback = ending.or(self.last_ended);
        if let Some(j) = cookie.filter(|&j| j < self.slots.len()) {
            if self.running(j, ending) {
                return Verdict::Defer;
            }
            if self.slots[j].started.is_none() {
                // A cookie of a check that never started: forged.
                return Verdict::Judged(Mark {
                    owner: fallback,
                    keep: false,
                });
            }
            return Verdict::Judged(Mark {
                owner: Some(j),
                keep: ending == Some(j) && self.slots[j].leave_running,
            });
        }
        // No cookie (scrubbed): the checks that ran when it started, with a
        // tick of slack each side (start times are whole ticks).
        let candidates: Vec<usize> = (0..self.slots.len())
            .filter(|&k| {
                let slot = &self.slots[k];
                slot.started.is_some_and(|s| s <= start + 1)
                    && slot.ended.is_none_or(|e| e + 1 >= start)
            })
            .collect();
        if candidates.iter().any(|&k| self.running(k, ending)) {
            return Verdict::Defer;
        }
        let owner = match ending {
            Some(i) if candidates.contains(&i) => Some(i),
            _ => candidates
                .iter()
                .copied()
                .max_by_key(|&k| self.slots[k].ended)
                .or(fallback),
        };
        let keep = ending.is_some()
            && owner == ending
            && !candidates.is_empty()
            && candidates.iter().all(|&k| self.slots[k].leave_running);
        Verdict::Judged(Mark { owner, keep })
    }

    /// Marks `pid` and everything below it with `mark`, and lists each in
    /// its owner's `leaked` (before any is killed: the command lines are
    /// read while they live).
    #[cfg(target_os = "linux")]
    fn record(&mut self, pid: u32, mark: Mark) {
        for member in reaper::tree(pid) {
            let Some(stat) = reaper::stat(member) else {
                continue;
            };
            if stat.zombie || self.marks.contains_key(&(member, stat.start)) {
                continue;
            }
            self.marks.insert((member, stat.start), mark);
            if let Some(slot) = mark.owner.and_then(|owner| self.slots.get_mut(owner)) {
                slot.leaked.push(Leaked {
                    pid: member,
                    command: reaper::command(member),
                });
            }
        }
    }
}

/// A check between the start of its spawn and the registration of its pid.
pub(crate) struct Starting<'a> {
    state: MutexGuard<'a, State>,
    index: usize,
    spawned: bool,
}

impl Starting<'_> {
    /// The check's main process is `pid`: never touched by a sweep.
    pub(crate) fn spawned(mut self, pid: u32) {
        self.state.mains.push(pid);
        self.spawned = true;
    }
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        if !self.spawned {
            let now = now_ticks();
            if let Some(slot) = self.state.slots.get_mut(self.index) {
                slot.ended = Some(now);
            }
        }
    }
}

/// Clock ticks since boot (the clock of a process's start time in /proc).
fn now_ticks() -> u64 {
    #[cfg(target_os = "linux")]
    {
        reaper::now_ticks()
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Whether run-check is a child subreaper: asked for once per process.
fn subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        static ACQUIRED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ACQUIRED.get_or_init(reaper::acquire)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// 16 random hex digits: the standard library's hasher keys come from the
/// OS's random source.
fn run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    format!("{:016x}", hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(slots: &[(Option<u64>, Option<u64>, bool)]) -> State {
        State {
            slots: slots
                .iter()
                .map(|&(started, ended, leave_running)| Slot {
                    leave_running,
                    started,
                    ended,
                    leaked: Vec::new(),
                })
                .collect(),
            ..State::default()
        }
    }

    fn judged(owner: Option<usize>, keep: bool) -> Verdict {
        Verdict::Judged(Mark { owner, keep })
    }

    #[test]
    fn a_cookie_names_the_owner_once_it_has_ended() {
        // 0 ended at 20, 1 runs, 2 never started.
        let mut s = state(&[
            (Some(10), Some(20), false),
            (Some(15), None, false),
            (None, None, false),
        ]);
        s.last_ended = Some(0);
        assert_eq!(s.judge(Some(0), 12, Some(0)), judged(Some(0), false));
        assert_eq!(s.judge(Some(1), 16, Some(0)), Verdict::Defer);
        // Its own end (or stop) judges it.
        assert_eq!(s.judge(Some(1), 16, Some(1)), judged(Some(1), false));
        // A cookie of a check that never ran is forged: the ending check's.
        assert_eq!(s.judge(Some(2), 16, Some(0)), judged(Some(0), false));
        assert_eq!(s.judge(Some(2), 16, None), judged(Some(0), false));
    }

    #[test]
    fn leave_running_keeps_only_at_the_checks_own_end() {
        let s = state(&[(Some(10), Some(20), true), (Some(21), Some(30), false)]);
        assert_eq!(s.judge(Some(0), 12, Some(0)), judged(Some(0), true));
        // Claiming check 0's cookie later does not keep a process alive.
        assert_eq!(s.judge(Some(0), 25, Some(1)), judged(Some(0), false));
        assert_eq!(s.judge(Some(0), 12, None), judged(Some(0), false));
    }

    #[test]
    fn without_a_cookie_the_start_time_says_which_checks_could_own_it() {
        // 0: 10..20, 1: 15..(running), 2: 40..50.
        let s = state(&[
            (Some(10), Some(20), false),
            (Some(15), None, false),
            (Some(40), Some(50), false),
        ]);
        // Started while 0 and 1 ran: 1 still runs, so wait.
        assert_eq!(s.judge(None, 17, Some(0)), Verdict::Defer);
        // Started while 1 and 2 ran: the same while 1 runs.
        assert_eq!(s.judge(None, 45, Some(2)), Verdict::Defer);
        // Once 1 has ended too, the ending check takes what it could own.
        let s = state(&[
            (Some(10), Some(20), false),
            (Some(15), Some(60), false),
            (Some(40), Some(50), false),
        ]);
        assert_eq!(s.judge(None, 17, Some(1)), judged(Some(1), false));
        // Not the ending check's: the candidate that ended last.
        assert_eq!(s.judge(None, 12, Some(2)), judged(Some(0), false));
        assert_eq!(s.judge(None, 45, None), judged(Some(1), false));
    }

    #[test]
    fn one_check_at_a_time_attributes_exactly() {
        let s = state(&[
            (Some(10), Some(20), false),
            (Some(21), Some(30), false),
            (Some(31), None, false),
        ]);
        assert_eq!(s.judge(None, 33, Some(2)), judged(Some(2), false));
    }

    #[test]
    fn scrubbed_processes_stay_only_when_every_candidate_may_leave_them() {
        let s = state(&[(Some(10), Some(20), true), (Some(12), Some(20), false)]);
        assert_eq!(s.judge(None, 15, Some(0)), judged(Some(0), false));
        let s = state(&[(Some(10), Some(20), true), (Some(30), Some(40), false)]);
        assert_eq!(s.judge(None, 15, Some(0)), judged(Some(0), true));
        assert_eq!(s.judge(None, 15, None), judged(Some(0), false));
    }

    #[test]
    fn cookies_are_read_back_only_from_this_run() {
        // Not `new`: the test process stays an ordinary parent.
        let c = Containment {
            run: run_id(),
            reaper: false,
            state: Mutex::new(State::default()),
        };
        assert_eq!(c.index_of(&c.cookie(1)), Some(1));
        assert_eq!(c.index_of("0123456789abcdef-1"), None);
        assert_eq!(c.index_of(&format!("{}-x", c.run)), None);
        assert_eq!(c.run.len(), 16);
        assert_ne!(run_id(), c.run);
    }
}
