//! What a snapshot may trust about a file without reading it
//! (docs/read-only.md, git's stat rule): its stat data, and on Linux its change time (ctime)
//! against the clock of the run.
//!
//! `Stat` is what is compared (whatever the bytes, as the parent module
//! says): on Unix the device, inode, mode (type and permission bits), size,
//! mtime and ctime; on Windows, where std offers no inode and no change
//! time, the size, the modification time, the read-only attribute and the
//! type.
//!
//! The ctime is the part a check cannot forge: every write, truncate,
//! `chmod`, `chown`, `utimes`, link or rename sets it to the current time,
//! and setting it to anything else takes privileges (the system clock, or
//! the raw device). So a file whose ctime is not after a moment T has not
//! changed since T, whatever its other fields say. Two limits make this
//! hold only where `Clock` says it does:
//! - granularity: the kernel stamps files from a coarse clock (one tick,
//!   1–10 ms) and some file systems keep whole seconds, so a change within
//!   one tick of T can carry a timestamp that is not after T ("racy", in
//!   git's words). Such files are read (hashed) instead.
//! - the clock's owner: on network and FUSE file systems the server stamps
//!   files with its own clock. Only local file systems (ext4, xfs, btrfs,
//!   tmpfs, overlayfs, f2fs, zfs, bcachefs) on Linux are trusted; elsewhere
//!   every listed file is hashed as before.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Slack added to the clock's tick.
const SLACK: Duration = Duration::from_millis(1);

/// The moment a first snapshot began, on the system clock (which stamps
/// files) and on the monotonic clock (to tell whether the system clock was
/// set back meanwhile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Clock {
    /// Nanoseconds since the Unix epoch.
    pub(super) at: i128,
    /// The same moment, monotonic.
    pub(super) mono: Instant,
}

impl Clock {
    /// `ago` before now.
    pub(super) fn since(ago: Duration) -> Clock {
        let mono = Instant::now();
        let now = SystemTime::now();
        let at = now.checked_sub(ago).unwrap_or(now);
        Clock {
            at: nanos(at),
            mono: mono.checked_sub(ago).unwrap_or(mono),
        }
    }

    /// How long after this moment a change is surely stamped after it: one
    /// tick of the clock files are stamped with, and a little slack.
    pub(super) fn tick() -> Duration {
        imp::tick() + SLACK
    }

    /// Waits until a change made from now on is stamped after this moment;
    /// `false` when that could not be seen to happen (within a second).
    ///
    /// On Linux the kernel stamps files from its coarse clock, which lags
    /// the precise one by a tick or more (up to 8 ms seen on these VMs,
    /// twice the tick `clock_getres` reports): so the wait lasts until the
    /// coarse clock itself has passed this moment, not for a tick.
    /// Elsewhere, one tick.
    pub(super) fn settle(&self) -> bool {
        let Some(coarse) = imp::COARSE_NOW else {
            let ready = self.mono + Clock::tick();
            let now = Instant::now();
            if ready > now {
                std::thread::sleep(ready - now);
            }
            return true;
        };
        stamped_past(coarse, self.at)
    }

    /// Whether the system clock went on at the pace of the monotonic clock
    /// since this moment (it was not set back by more than a tick).
    pub(super) fn held(&self) -> bool {
        let wall = nanos(SystemTime::now()) - self.at;
        let mono = self.mono.elapsed().as_nanos() as i128;
        wall + Clock::tick().as_nanos() as i128 >= mono
    }
}

/// Waits until the kernel's file-stamping clock has passed `at`
/// (nanoseconds since the epoch), so that a change made from then on is
/// stamped after it; `false` where that clock cannot be read (not Linux)
/// or when it was not seen to pass within a second.
pub(super) fn stamps_past(at: i128) -> bool {
    imp::COARSE_NOW.is_some_and(|coarse| stamped_past(coarse, at))
}

fn stamped_past(coarse: fn() -> i128, at: i128) -> bool {
    let started = Instant::now();
    while coarse() <= at {
        if started.elapsed() > Duration::from_secs(1) {
            return false;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
    true
}

/// A moment no later than the timestamp the kernel gives a change made
/// from now on (nanoseconds since the epoch): on Linux its coarse clock
/// now (changes are stamped from it, or from a finer clock that is never
/// behind it); elsewhere the system clock less a tick.
pub(super) fn stamp_floor() -> i128 {
    match imp::COARSE_NOW {
        Some(coarse) => coarse(),
        None => nanos(SystemTime::now()) - Clock::tick().as_nanos() as i128,
    }
}

/// Nanoseconds since the Unix epoch (negative before it).
pub(super) fn nanos(time: SystemTime) -> i128 {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

pub(super) use imp::{DirId, Lstat, Stat, dir_id, dir_links, special};

/// Whether a file's change time is read and can be trusted at all (where
/// `Trust` says its file system stamps it from this machine's clock): on
/// Linux, as for the files a first snapshot leaves unread.
pub(super) const CHANGE_TIME: bool = imp::UNREAD;

/// Whether a file with `stat`, seen by a snapshot that began at `clock`,
/// must be read (hashed): when its file system's clock is not trusted, when
/// the file system keeps coarse timestamps, or when it changed within a
/// tick of the snapshot (racy: a change right after could keep its stat
/// data).
pub(super) fn needs_reading(stat: &Stat, path: &Path, clock: &Clock, trust: &mut Trust) -> bool {
    let tick = Clock::tick().as_nanos() as i128;
    !(trust.of(stat, path) && stat.fine() && stat.changed() + tick < clock.at)
}

/// Whether the directory at `path` is still the one of `id`, unchanged
/// since `clock` (no entry created, deleted or renamed in it: its change
/// time is not after that moment).
pub(super) fn dir_unchanged(path: &Path, id: &DirId, clock: &Clock) -> bool {
    dir_unchanged_at(path, id, clock.at)
}

/// [`dir_unchanged`] since `at` (nanoseconds since the epoch).
pub(super) fn dir_unchanged_at(path: &Path, id: &DirId, at: i128) -> bool {
    dir_links(path).is_some_and(|(stat, _)| imp::id(&stat) == *id && stat.changed() <= at)
}

/// Which file systems' clocks are trusted, asked once per device.
#[derive(Debug, Default)]
pub(super) struct Trust {
    /// Device → trusted.
    known: Vec<(u64, bool)>,
}

impl Trust {
    /// Whether the file system holding `path`, whose stat data is `stat`,
    /// is local and its timestamps come from this machine's clock.
    pub(super) fn of(&mut self, stat: &Stat, path: &Path) -> bool {
        let Some(dev) = stat.device() else {
            return false;
        };
        if let Some((_, trusted)) = self.known.iter().find(|(d, _)| *d == dev) {
            return *trusted;
        }
        let trusted = imp::local(path);
        self.known.push((dev, trusted));
        trusted
    }

    /// [`Trust::of`], with the path made only for a device not seen yet.
    pub(super) fn of_lazy(&mut self, stat: &Stat, path: impl FnOnce() -> PathBuf) -> bool {
        match stat.device() {
            Some(dev) => match self.known.iter().find(|(d, _)| *d == dev) {
                Some((_, trusted)) => *trusted,
                None => self.of(stat, &path()),
            },
            None => false,
        }
    }

    /// The identity, change time and link count of the directory at
    /// `path`, when it can be judged by its change time (as `dir` says).
    pub(super) fn dir_links(&mut self, path: &Path) -> Option<(DirId, i128, u64)> {
        if !imp::UNREAD {
            return None;
        }
        let (stat, links) = dir_links(path)?;
        (stat.fine() && self.of(&stat, path)).then(|| (imp::id(&stat), stat.changed(), links))
    }

    /// The identity of the directory at `path` when its files can be left
    /// unread by a first snapshot and judged by their ctime alone: on Linux,
    /// a local file system with fine timestamps.
    pub(super) fn dir(&mut self, path: &Path) -> Option<DirId> {
        self.dir_links(path).map(|(id, _, _)| id)
    }
}

#[cfg(unix)]
mod imp {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;
    use std::time::Duration;

    use rustix::fs::{AtFlags, CWD, FileType, OFlags};

    /// Whether a first snapshot may leave files unread (judge them by ctime
    /// later): on Linux, whose local file systems all stamp a renamed or
    /// linked file with a new ctime.
    pub(super) const UNREAD: bool = cfg!(target_os = "linux");

    /// A file's stat data (`lstat`: a symlink's own).
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(in crate::run::snapshot) struct Stat {
        dev: u64,
        ino: u64,
        mode: u32,
        size: u64,
        /// Nanoseconds since the epoch (an `i64` reaches the year 2262).
        mtime: i64,
        ctime: i64,
    }

    impl Stat {
        /// The stat data of `meta`.
        pub(in crate::run::snapshot) fn of(meta: &std::fs::Metadata) -> Stat {
            Stat {
                dev: meta.dev(),
                ino: meta.ino(),
                mode: meta.mode(),
                size: meta.size(),
                mtime: nanos(meta.mtime(), meta.mtime_nsec()),
                ctime: nanos(meta.ctime(), meta.ctime_nsec()),
            }
        }

        pub(super) fn device(&self) -> Option<u64> {
            Some(self.dev)
        }

        /// Nanoseconds since the epoch of the last change (ctime).
        pub(in crate::run::snapshot) fn changed(&self) -> i128 {
            i128::from(self.ctime)
        }

        /// Whether the timestamps are finer than a second (a file system
        /// with whole seconds writes 0 nanoseconds; a fine one, practically
        /// never).
        pub(in crate::run::snapshot) fn fine(&self) -> bool {
            self.ctime % 1_000_000_000 != 0
        }

        /// Whether this file lies on the device of `dir`.
        pub(in crate::run::snapshot) fn on(&self, dir: &DirId) -> bool {
            self.dev == dir.dev
        }
    }

    /// Seconds and nanoseconds as nanoseconds since the epoch (saturating
    /// beyond the years 1678–2262).
    fn nanos(secs: i64, nsec: i64) -> i64 {
        secs.saturating_mul(1_000_000_000).saturating_add(nsec)
    }

    /// A directory's identity: device and inode.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(in crate::run::snapshot) struct DirId {
        dev: u64,
        ino: u64,
    }

    /// The identity of the file of `stat`.
    pub(super) fn id(stat: &Stat) -> DirId {
        DirId {
            dev: stat.dev,
            ino: stat.ino,
        }
    }

    /// The identity of the directory at `path` (not through a symlink).
    pub(in crate::run::snapshot) fn dir_id(path: &Path) -> Option<DirId> {
        // One `statx` (an `Lstat` would open the folder's folder first).
        dir_links(path).map(|(stat, _)| id(&stat))
    }

    /// The stat data of the directory at `path` (not through a symlink)
    /// and its link count (2 plus its subdirectories on most local file
    /// systems; 1 on btrfs and where the count overflowed).
    pub(in crate::run::snapshot) fn dir_links(path: &Path) -> Option<(Stat, u64)> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        meta.is_dir().then(|| (Stat::of(&meta), meta.nlink()))
    }

    /// Whether `kind` is a FIFO, a socket or a device: what `git status`
    /// never lists.
    pub(in crate::run::snapshot) fn special(kind: &std::fs::FileType) -> bool {
        use std::os::unix::fs::FileTypeExt;
        kind.is_fifo() || kind.is_socket() || kind.is_block_device() || kind.is_char_device()
    }

    /// Takes stat data one folder at a time: the folder stays open while
    /// the next file is in it too, and each file is looked up by its name
    /// (`fstatat`), not by a path the kernel walks from `/` (with 200,000
    /// files, the walk was most of the cost).
    #[derive(Debug, Default)]
    pub(in crate::run::snapshot) struct Lstat {
        /// The folder open now, by its path's bytes.
        dir: Option<(Vec<u8>, OwnedFd)>,
    }

    impl Lstat {
        /// [`Lstat::of`] the snapshot key `key` in `worktree`: the folder
        /// is opened by its path once, each file looked up by its name
        /// (no path is joined per file).
        pub(in crate::run::snapshot) fn of_key(
            &mut self,
            worktree: &Path,
            key: &Path,
        ) -> io::Result<(Stat, bool)> {
            let whole = key.as_os_str().as_bytes();
            let trimmed = whole.strip_suffix(b"/").unwrap_or(whole);
            let (parent, name) = match trimmed.iter().rposition(|&b| b == b'/') {
                _ if key.is_absolute() || trimmed.is_empty() => {
                    return self.of(&worktree.join(key));
                }
                Some(slash) => (&trimmed[..slash], &trimmed[slash + 1..]),
                None => (&b""[..], trimmed),
            };
            if name.is_empty() || name == b"." || name == b".." {
                return self.of(&worktree.join(key));
            }
            // The folder's path is the worktree's, `/`, the parent's: compared
            // piece by piece with the open one (no path built per file).
            let base = worktree.as_os_str().as_bytes();
            let open = self.dir.as_ref().is_some_and(|(dir, _)| {
                if parent.is_empty() {
                    dir == base
                } else {
                    dir.len() == base.len() + 1 + parent.len()
                        && dir.starts_with(base)
                        && dir[base.len()] == b'/'
                        && dir.ends_with(parent)
                }
            });
            if !open {
                let mut wanted = Vec::with_capacity(base.len() + 1 + parent.len());
                wanted.extend_from_slice(base);
                if !parent.is_empty() {
                    wanted.push(b'/');
                    wanted.extend_from_slice(parent);
                }
                self.open(&wanted)?;
            }
            match &self.dir {
                Some((_, fd)) => at(fd.as_fd(), name),
                None => self.of(&worktree.join(key)),
            }
        }

        /// Opens the folder at `dir` (a path's bytes) unless it is open.
        fn open(&mut self, dir: &[u8]) -> io::Result<()> {
            if self.dir.as_ref().is_some_and(|(open, _)| open == dir) {
                return Ok(());
            }
            self.dir = None;
            #[cfg(target_os = "linux")]
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            #[cfg(not(target_os = "linux"))]
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let fd = rustix::fs::open(dir, flags, rustix::fs::Mode::empty())?;
            self.dir = Some((dir.to_vec(), fd));
            Ok(())
        }

        /// The stat data of `path` (a symlink's own), and whether it is a
        /// directory.
        pub(in crate::run::snapshot) fn of(&mut self, path: &Path) -> io::Result<(Stat, bool)> {
            // The folder and the name, as bytes (`Path::parent` compares
            // component by component: most of the cost of 200,000 calls).
            let whole = path.as_os_str().as_bytes();
            let trimmed = if whole.len() > 1 {
                whole.strip_suffix(b"/").unwrap_or(whole)
            } else {
                whole
            };
            let (parent, name) = match trimmed.iter().rposition(|&b| b == b'/') {
                Some(0) | None => return at(CWD, whole),
                Some(slash) => (&trimmed[..slash], &trimmed[slash + 1..]),
            };
            if name.is_empty() {
                return at(CWD, whole);
            }
            self.open(parent)?;
            match &self.dir {
                Some((_, fd)) => at(fd.as_fd(), name),
                None => at(CWD, whole),
            }
        }
    }

    /// `fstatat(dir, name)`, not following a symlink.
    fn at(dir: BorrowedFd<'_>, name: &[u8]) -> io::Result<(Stat, bool)> {
        let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
        #[allow(clippy::unnecessary_cast)]
        let stat = Stat {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            mode: st.st_mode as u32,
            size: st.st_size as u64,
            mtime: nanos(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: nanos(st.st_ctime as i64, st.st_ctime_nsec as i64),
        };
        let is_dir = FileType::from_raw_mode(st.st_mode as _) == FileType::Directory;
        Ok((stat, is_dir))
    }

    /// The clock the kernel stamps files with, now (nanoseconds since the
    /// epoch), where it is known: Linux's coarse real-time clock.
    #[cfg(target_os = "linux")]
    pub(super) const COARSE_NOW: Option<fn() -> i128> = Some(|| {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
        i128::from(now.tv_sec) * 1_000_000_000 + i128::from(now.tv_nsec)
    });
    #[cfg(not(target_os = "linux"))]
    pub(super) const COARSE_NOW: Option<fn() -> i128> = None;

    /// One tick of the clock the kernel stamps files with.
    pub(super) fn tick() -> Duration {
        #[cfg(target_os = "linux")]
        {
            let res = rustix::time::clock_getres(rustix::time::ClockId::RealtimeCoarse);
            if res.tv_sec == 0 && res.tv_nsec > 0 {
                return Duration::from_nanos(res.tv_nsec as u64);
            }
        }
        Duration::from_millis(10)
    }

    /// Whether the file system at `path` is a local one whose timestamps
    /// come from this kernel's clock.
    pub(super) fn local(path: &Path) -> bool {
        #[cfg(target_os = "linux")]
        {
            const LOCAL: [i64; 8] = [
                0xEF53,      // ext2, ext3, ext4
                0x5846_5342, // xfs
                0x9123_683E, // btrfs
                0x0102_1994, // tmpfs
                0x794C_7630, // overlayfs
                0xF2F5_2010, // f2fs
                0x2FC1_2FC1, // zfs
                0xCA45_1A4E, // bcachefs
            ];
            #[allow(clippy::unnecessary_cast)]
            rustix::fs::statfs(path).is_ok_and(|fs| LOCAL.contains(&(fs.f_type as i64)))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = path;
            false
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;
    use std::time::Duration;

    /// No change time in std: every file is read.
    pub(super) const UNREAD: bool = false;

    /// A file's stat data: size, modification time, read-only attribute,
    /// type.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(in crate::run::snapshot) struct Stat {
        size: u64,
        mtime: Option<std::time::SystemTime>,
        readonly: bool,
        symlink: bool,
    }

    impl Stat {
        /// The stat data of `meta`.
        pub(in crate::run::snapshot) fn of(meta: &std::fs::Metadata) -> Stat {
            Stat {
                size: meta.len(),
                mtime: meta.modified().ok(),
                readonly: meta.permissions().readonly(),
                symlink: meta.file_type().is_symlink(),
            }
        }

        /// No device to ask about: never trusted.
        pub(super) fn device(&self) -> Option<u64> {
            None
        }

        /// No change time: the epoch.
        pub(in crate::run::snapshot) fn changed(&self) -> i128 {
            0
        }

        /// Never fine enough to trust.
        pub(in crate::run::snapshot) fn fine(&self) -> bool {
            false
        }

        /// No device identity.
        pub(in crate::run::snapshot) fn on(&self, _dir: &DirId) -> bool {
            false
        }
    }

    /// A directory (no identity available through std).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(in crate::run::snapshot) struct DirId;

    /// Never asked (no directory is trusted).
    pub(super) fn id(_stat: &Stat) -> DirId {
        DirId
    }

    /// Never known.
    pub(in crate::run::snapshot) fn dir_id(_path: &Path) -> Option<DirId> {
        None
    }

    /// Never known.
    pub(in crate::run::snapshot) fn dir_links(_path: &Path) -> Option<(Stat, u64)> {
        None
    }

    /// No FIFO, socket or device is a worktree file here.
    pub(in crate::run::snapshot) fn special(_kind: &std::fs::FileType) -> bool {
        false
    }

    /// Takes stat data through std (a field, not a unit struct: built with
    /// `default()` as the Unix one is).
    #[derive(Debug, Default)]
    pub(in crate::run::snapshot) struct Lstat(());

    impl Lstat {
        /// The stat data of `path` (a symlink's own), and whether it is a
        /// directory.
        pub(in crate::run::snapshot) fn of(
            &mut self,
            path: &Path,
        ) -> std::io::Result<(Stat, bool)> {
            let meta = std::fs::symlink_metadata(path)?;
            Ok((Stat::of(&meta), meta.is_dir()))
        }

        /// [`Lstat::of`] the snapshot key `key` in `worktree`.
        pub(in crate::run::snapshot) fn of_key(
            &mut self,
            worktree: &Path,
            key: &Path,
        ) -> std::io::Result<(Stat, bool)> {
            self.of(&worktree.join(key))
        }
    }

    /// Not known.
    pub(super) const COARSE_NOW: Option<fn() -> i128> = None;

    /// A tick, for the interface's sake (nothing waits on it here).
    pub(super) fn tick() -> Duration {
        Duration::from_millis(10)
    }

    /// Never asked (no device).
    pub(super) fn local(_path: &Path) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_holds_and_settles_within_a_tick() {
        let clock = Clock::since(Duration::ZERO);
        let started = Instant::now();
        assert!(clock.settle());
        assert!(started.elapsed() <= Duration::from_secs(1));
        assert!(clock.held());
        // A clock from long ago needs no wait.
        let old = Clock::since(Duration::from_secs(5));
        let started = Instant::now();
        assert!(old.settle());
        assert!(started.elapsed() < Duration::from_millis(5));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_written_now_is_read_and_an_old_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "x").unwrap();
        let stat = Stat::of(&std::fs::symlink_metadata(&path).unwrap());
        let mut trust = Trust::default();
        let at = |offset: Duration| Clock {
            at: stat.changed() + offset.as_nanos() as i128,
            mono: Instant::now(),
        };
        let tick = Clock::tick();
        if trust.of(&stat, &path) && stat.fine() {
            // Changed within a tick of the snapshot's start: racy.
            assert!(needs_reading(&stat, &path, &at(Duration::ZERO), &mut trust));
            assert!(needs_reading(&stat, &path, &at(tick / 2), &mut trust));
            assert!(!needs_reading(&stat, &path, &at(tick * 2), &mut trust));
        } else {
            assert!(needs_reading(&stat, &path, &at(tick * 2), &mut trust));
        }
        let dir_id = dir_id(dir.path()).unwrap();
        assert!(stat.on(&dir_id));
        if let Some(trusted) = trust.dir(dir.path()) {
            assert_eq!(trusted, dir_id);
        }
        assert!(super::dir_id(&path).is_none());
        assert!(trust.dir(&path).is_none());
    }
}
