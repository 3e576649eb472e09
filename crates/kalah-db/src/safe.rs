//! The one way the project writes a file it keeps: under a temporary name
//! beside the target (`FILE.partial`, [`partial_path`]), locked against a
//! second writer, synced, and renamed over the target once complete.
//!
//! A failure or a crash leaves the target as it was (an older file stays
//! usable until the rename); a second writer of the same target is refused
//! while the first holds the lock ([`claim`]), rather than mixing its bytes
//! into the first one's; every error names the file. [`SafeFile`] writes a
//! file in one go (archives, unpacked databases, manifests, tables); a
//! database build ([`crate::writer`]) claims its partial file the same way
//! and keeps it, to resume from, when it stops.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::DbError;

/// The name a writer of `path` writes under until the file is complete.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".partial");
    path.with_file_name(name)
}

/// Makes `file`, just opened as `partial`, this writer's alone: an
/// exclusive lock (released when the file is closed), refused if another
/// writer holds it; and, once locked, still the file named `partial` (a
/// writer that finished meanwhile renamed it into place).
pub fn claim(file: &File, partial: &Path) -> Result<(), DbError> {
    use fs4::fs_std::FileExt;
    let busy = || busy(partial);
    // A file system without locks (some network ones) writes unguarded.
    if let Ok(false) = file.try_lock_exclusive() {
        return Err(busy());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let open = file.metadata().map_err(|e| DbError::io(partial, e))?;
        match fs::metadata(partial) {
            Ok(named) if (named.dev(), named.ino()) == (open.dev(), open.ino()) => {}
            _ => return Err(busy()),
        }
    }
    Ok(())
}

fn busy(partial: &Path) -> DbError {
    let why = "another kalah process is writing this file; wait for it to finish, or write elsewhere";
    DbError::io(partial, io::Error::new(io::ErrorKind::InvalidInput, why))
}

/// Refuses `target` when another writer holds its partial file: checked
/// before long work (and before it is announced), so that the refusal
/// comes first and alone. The writer's own [`claim`] still decides.
pub fn check_free(target: &Path) -> Result<(), DbError> {
    use fs4::fs_std::FileExt;
    let partial = partial_path(target);
    match File::open(&partial) {
        Ok(file) if matches!(file.try_lock_exclusive(), Ok(false)) => Err(busy(&partial)),
        // Free (the lock taken here goes with the file), or no partial file.
        _ => Ok(()),
    }
}

/// Opens (creating it if need be, never truncating it before the lock)
/// and claims the partial file of `target`: the file a writer of `target`
/// writes under, in the directory of `target`, which must exist.
pub fn open_partial(target: &Path) -> Result<(File, PathBuf), DbError> {
    if target.is_dir() {
        return Err(DbError::io(target, io::Error::new(io::ErrorKind::InvalidInput, "is a directory, not a file")));
    }
    let partial = partial_path(target);
    let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&partial).map_err(|e| DbError::io(&partial, e))?;
    claim(&file, &partial)?;
    Ok((file, partial))
}

/// Whether a file can be written at `target`, checked before long work
/// that ends by writing it: its directory exists (it is made if missing),
/// and a file can be created there (one is, and removed again).
pub fn check_writable(target: &Path) -> Result<(), DbError> {
    if target.is_dir() {
        return Err(DbError::io(target, io::Error::new(io::ErrorKind::InvalidInput, "is a directory, not a file")));
    }
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
    let mut name = target.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(format!(".writable-{}", std::process::id()));
    let probe = target.with_file_name(name);
    OpenOptions::new().write(true).create_new(true).open(&probe).map_err(|e| DbError::io(target, e))?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// Refuses to write `target` from `input` when `input` is the file that
/// writer would write under (`target`'s partial file, or a link to it):
/// emptying it would destroy the input being read (a bus error on the
/// mapping, and the input lost).
pub fn refuse_partial_input(input: &Path, target: &Path) -> Result<(), DbError> {
    if same_file(input, &partial_path(target)) {
        let why = format!("is where {} is written until it is complete; copy or rename it first", target.display());
        return Err(DbError::io(input, std::io::Error::new(std::io::ErrorKind::InvalidInput, why)));
    }
    Ok(())
}

/// Refuses to write `target` from `input` when `input` is `target` itself
/// (or a link to it), whose rename at the end would destroy the input, or
/// its partial file ([`refuse_partial_input`]).
pub fn refuse_input_as_output(input: &Path, target: &Path) -> Result<(), DbError> {
    if same_file(input, target) {
        let why = format!("is the input file {}; give the output another name", input.display());
        return Err(DbError::io(target, std::io::Error::new(std::io::ErrorKind::InvalidInput, why)));
    }
    refuse_partial_input(input, target)
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// A file written whole or not at all ([module docs](self)): write into
/// it, then [`SafeFile::commit`]. Dropped without a commit (an error on
/// the way), its partial file is removed and the target is untouched.
#[derive(Debug)]
pub struct SafeFile {
    file: Option<File>,
    partial: PathBuf,
    target: PathBuf,
}

impl SafeFile {
    /// Starts writing `target`: its partial file opened, claimed and
    /// emptied.
    pub fn create(target: &Path) -> Result<SafeFile, DbError> {
        let (file, partial) = open_partial(target)?;
        file.set_len(0).map_err(|e| DbError::io(&partial, e))?;
        Ok(SafeFile { file: Some(file), partial, target: target.to_path_buf() })
    }

    /// The file written (the partial one), to name in an error.
    pub fn path(&self) -> &Path {
        &self.partial
    }

    /// The open partial file.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("a SafeFile is open until it is committed")
    }

    /// Syncs the file and renames it over the target.
    pub fn commit(mut self) -> Result<(), DbError> {
        let file = self.file.take().expect("a SafeFile is committed once");
        file.sync_all().map_err(|e| DbError::io(&self.partial, e))?;
        // Renamed while still locked: no second writer can claim the name in between.
        fs::rename(&self.partial, &self.target).map_err(|e| DbError::io(&self.target, e))?;
        drop(file);
        sync_dir(&self.target);
        Ok(())
    }
}

impl Write for SafeFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Drop for SafeFile {
    fn drop(&mut self) {
        // Not committed: the partial file is this writer's (it holds the lock), and goes.
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.partial);
        }
    }
}

/// Flushes the directory entry of a renamed file (best effort).
pub(crate) fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_committed_file_replaces_the_target_and_leaves_no_partial() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let mut f = SafeFile::create(&target).unwrap();
        writeln!(f, "new").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new\n");
        assert!(!partial_path(&target).exists());
    }

    #[test]
    fn a_file_dropped_before_its_commit_leaves_the_target_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        fs::write(&target, "old\n").unwrap();
        {
            let mut f = SafeFile::create(&target).unwrap();
            writeln!(f, "half").unwrap();
        }
        assert_eq!(fs::read_to_string(&target).unwrap(), "old\n");
        assert!(!partial_path(&target).exists());
    }

    #[test]
    fn a_second_writer_of_the_same_target_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        let mut first = SafeFile::create(&target).unwrap();
        assert!(check_free(&target).is_err());
        let second = SafeFile::create(&target).unwrap_err();
        assert!(second.to_string().contains("another kalah process"), "{second}");
        assert!(second.to_string().contains("out.csv.partial"), "{second}");
        // The refusal took nothing from the first writer.
        writeln!(first, "first").unwrap();
        first.commit().unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "first\n");
        assert!(check_free(&target).is_ok());
    }

    #[test]
    fn a_directory_or_an_unwritable_place_is_found_before_work_starts() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_writable(dir.path()).unwrap_err().to_string().contains("is a directory"));
        assert!(check_writable(&dir.path().join("a/b.csv")).is_ok());
        let file = dir.path().join("plain");
        fs::write(&file, "").unwrap();
        // A file where a directory should be.
        assert!(check_writable(&file.join("m.csv")).is_err());
        assert_eq!(fs::read_dir(dir.path().join("a")).unwrap().count(), 0, "the check leaves nothing behind");
    }
}
