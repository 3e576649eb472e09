//! The one error type of the library, with kinds a caller can act on.

use kalah_db::DbError;
use kalah_search::SearchError;

/// What went wrong, by what the caller can do about it. Kinds may be
/// added: a caller's match keeps an arm for the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request itself is wrong: a malformed position, an option out of
    /// range, a database for another board, a file that is not there.
    /// Fix the request (CLI exit code 2, HTTP 400).
    BadInput,
    /// The request is well formed but refused: too large for this machine's
    /// memory, beyond what the method can do (CLI exit code 2, HTTP 422).
    Refused,
    /// A database file is damaged, foreign or incomplete: rebuild or
    /// replace it (CLI exit code 2).
    Corrupt,
    /// Reading or writing failed for a reason of the machine (a full disk,
    /// an I/O error) (CLI exit code 1).
    Io,
    /// A bug, or values that contradict each other (CLI exit code 1).
    Internal,
}

impl ErrorKind {
    /// The kind's name in answers (`bad_input`, `refused`, `corrupt`, `io`,
    /// `internal`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::BadInput => "bad_input",
            ErrorKind::Refused => "refused",
            ErrorKind::Corrupt => "corrupt",
            ErrorKind::Io => "io",
            ErrorKind::Internal => "internal",
        }
    }
}

/// The part of a request an error is about, so that each door names it
/// its own way (`kalah` flags such as `--tt-mb`, Python's `tt_mb=`, the
/// API's `time_limit`); the library's messages name none of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// Search threads ([`crate::Request::threads`]).
    Threads,
    /// The transposition table's size ([`crate::Request::tt_mb`]).
    TtMb,
    /// The time limit ([`crate::Request::time_limit`]).
    TimeLimit,
    /// The size of a database built in memory ([`crate::DbSpec::build_seeds`]).
    DbSeeds,
    /// The database file ([`crate::DbSpec::file`]).
    DbFile,
    /// The journal directory ([`crate::Request::journal`]).
    Journal,
    /// The null-window tests of the position ([`crate::Request::tests`]).
    Tests,
}

impl Field {
    /// The field's name in the library's request and the JSON API
    /// (`threads`, `tt_mb`, `time_limit`, `db_seeds`, `db`, `journal`,
    /// `tests`).
    pub fn name(self) -> &'static str {
        match self {
            Field::Threads => "threads",
            Field::TtMb => "tt_mb",
            Field::TimeLimit => "time_limit",
            Field::DbSeeds => "db_seeds",
            Field::DbFile => "db",
            Field::Journal => "journal",
            Field::Tests => "tests",
        }
    }
}

/// A failure of the library: its [`ErrorKind`], one line saying what, the
/// part of the request it is about if one is ([`Error::field`]), and its
/// cause if another error caused it ([`Error::cause`]).
///
/// An error of a lower layer (a [`DbError`], a [`SearchError`], a rule or
/// position error) is wrapped whole: its message is this error's. Its
/// [`source`](std::error::Error::source) is the first error down the
/// chain of causes that says something this one's message does not, so
/// that a chain printed one after another (`{:#}`) says each thing once.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    field: Option<Field>,
    cause: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let mut next: Option<&(dyn std::error::Error + 'static)> = Some(self.cause.as_deref()?);
        while let Some(cause) = next.filter(|c| self.message.contains(&c.to_string())) {
            next = cause.source();
        }
        next
    }
}

/// The library's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with this message (and no field or cause).
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), field: None, cause: None }
    }

    /// A [`ErrorKind::BadInput`] error with this message.
    pub fn bad_input(message: impl Into<String>) -> Error {
        Error::of_kind(ErrorKind::BadInput, message)
    }

    /// A [`ErrorKind::Refused`] error with this message.
    pub fn refused(message: impl Into<String>) -> Error {
        Error::of_kind(ErrorKind::Refused, message)
    }

    /// A [`ErrorKind::Corrupt`] error with this message.
    pub fn corrupt(message: impl Into<String>) -> Error {
        Error::of_kind(ErrorKind::Corrupt, message)
    }

    /// A [`ErrorKind::Io`] error with this message and its cause, if known.
    pub fn io(message: impl Into<String>, source: Option<std::io::Error>) -> Error {
        let error = Error::of_kind(ErrorKind::Io, message);
        match source {
            Some(cause) => error.caused_by(cause),
            None => error,
        }
    }

    /// A [`ErrorKind::Internal`] error with this message.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::of_kind(ErrorKind::Internal, message)
    }

    /// This error, about `field` of the request.
    pub fn about(self, field: Field) -> Error {
        Error { field: Some(field), ..self }
    }

    /// This error, caused by `cause` (kept as its [`source`](std::error::Error::source)).
    pub fn caused_by(self, cause: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error { cause: Some(Box::new(cause)), ..self }
    }

    /// An error of `kind` that is `cause` itself, said in its words.
    fn wrapping(kind: ErrorKind, cause: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error { kind, message: cause.to_string(), field: None, cause: Some(Box::new(cause)) }
    }

    /// The error of a lower layer this one comes from, if one does: a
    /// [`DbError`], a [`SearchError`], a [`kalah_core::RuleError`] or
    /// [`kalah_core::PositionError`] (whose message this error repeats), or
    /// an I/O error. Downcast it to act on its kind:
    /// `e.cause().and_then(|c| c.downcast_ref::<kalah::DbError>())`.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.cause.as_deref()
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The part of the request the error is about, if one is: a door names
    /// it as its users know it.
    pub fn field(&self) -> Option<Field> {
        self.field
    }

    /// Whether the user can fix it (bad input, a refused request, a damaged
    /// file), as opposed to the machine or the program failing.
    pub fn is_users(&self) -> bool {
        matches!(self.kind(), ErrorKind::BadInput | ErrorKind::Refused | ErrorKind::Corrupt)
    }
}

impl From<DbError> for Error {
    fn from(e: DbError) -> Error {
        let kind = match &e {
            DbError::Io { source, .. } => {
                use std::io::ErrorKind as K;
                // ELOOP (a symbolic link loop), EROFS (a read-only file
                // system) and ENAMETOOLONG (a name too long) on Linux: the
                // path given is what is wrong.
                let users = matches!(
                    source.kind(),
                    K::NotFound | K::PermissionDenied | K::IsADirectory | K::NotADirectory | K::InvalidInput | K::InvalidData
                ) || matches!(source.raw_os_error(), Some(40) | Some(30) | Some(36));
                if users {
                    ErrorKind::BadInput
                } else {
                    ErrorKind::Io
                }
            }
            DbError::NotADatabase { .. } | DbError::Version { .. } | DbError::Corrupt { .. } | DbError::Incomplete { .. } => ErrorKind::Corrupt,
            DbError::WrongRules { .. } | DbError::WrongBoard { .. } => ErrorKind::BadInput,
            // A value asked of a file that holds only bounds for it: the
            // request cannot be answered that way (a search can).
            DbError::OnlyBounds { .. } => ErrorKind::Refused,
            // A build its caller stopped: the request was not carried out.
            DbError::TooLarge { .. } | DbError::Unsupported(_) | DbError::Stopped { .. } => ErrorKind::Refused,
            DbError::Memory { .. } => ErrorKind::Io,
        };
        Error::wrapping(kind, e)
    }
}

impl From<SearchError> for Error {
    fn from(e: SearchError) -> Error {
        let kind = match &e {
            SearchError::EndlessPlay
            | SearchError::WrongTablebase { .. }
            | SearchError::WrongPosition { .. }
            | SearchError::NotCovered { .. }
            | SearchError::IllegalLine(_) => ErrorKind::BadInput,
            SearchError::Memory { .. } | SearchError::Threads { .. } | SearchError::NotExact => ErrorKind::Refused,
            // Contradicting values come from a damaged or forged database
            // far more often than from a bug: the file is what to check.
            SearchError::Tablebase(_) | SearchError::Inconsistent(_) => ErrorKind::Corrupt,
        };
        Error::wrapping(kind, e)
    }
}

impl From<kalah_core::RuleError> for Error {
    fn from(e: kalah_core::RuleError) -> Error {
        Error::wrapping(ErrorKind::BadInput, e)
    }
}

impl From<kalah_core::PositionError> for Error {
    fn from(e: kalah_core::PositionError) -> Error {
        Error::wrapping(ErrorKind::BadInput, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::analyzer::Analyzer;
    use crate::answer::request::Request;
    use crate::databases::Databases;
    use crate::progress::Silent;
    use kalah_core::{Position, Rules};

    /// A database's failure keeps its cause; an error about a part of the
    /// request says which, and names no door's flag.
    #[test]
    fn an_error_keeps_its_cause_and_its_field() {
        let io = std::io::Error::other("the disk is on fire");
        let e = Error::from(DbError::io(std::path::Path::new("x.kdb"), io));
        assert_eq!(e.kind(), ErrorKind::Io);
        let cause = e.cause().expect("a cause");
        assert!(cause.downcast_ref::<DbError>().is_some(), "{cause}");
        assert_eq!(e.field(), None);
        // Each thing said once along the chain of causes: the database's
        // message (which holds the I/O error's) is the error's, and no
        // cause repeats it.
        let chain: Vec<String> = std::iter::successors(Some(&e as &dyn std::error::Error), |c| c.source()).map(|c| c.to_string()).collect();
        assert_eq!(chain, ["x.kdb: the disk is on fire"]);
        // A cause that says more is kept in the chain.
        let more = Error::io("the journal cannot be kept", Some(std::io::Error::other("no space left")));
        let chain: Vec<String> = std::iter::successors(Some(&more as &dyn std::error::Error), |c| c.source()).map(|c| c.to_string()).collect();
        assert_eq!(chain, ["the journal cannot be kept", "no space left"]);

        let analyzer = Analyzer::new(Databases::new("no-such-directory"));
        let start = Position::start(3, 3).unwrap();
        for (request, field) in [
            (Request { tt_mb: Some(0), ..Request::new(start, Rules::default()) }, Field::TtMb),
            (Request { threads: 0, ..Request::new(start, Rules::default()) }, Field::Threads),
            (Request { time_limit: Some(std::time::Duration::ZERO), ..Request::new(start, Rules::default()) }, Field::TimeLimit),
        ] {
            let e = analyzer.analyze(&request, &Silent).unwrap_err();
            assert_eq!((e.kind(), e.field()), (ErrorKind::BadInput, Some(field)), "{e}");
            assert!(!e.to_string().contains("--"), "a flag in a library message: {e}");
        }
    }
}
