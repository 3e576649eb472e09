//! The one error type of the library, with kinds a caller can act on.

use kalah_db::DbError;
use kalah_search::SearchError;
use thiserror::Error;

/// What went wrong, by what the caller can do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// A failure of the library: its [`ErrorKind`] and one line saying what.
#[derive(Debug, Error)]
pub enum Error {
    /// See [`ErrorKind::BadInput`].
    #[error("{0}")]
    BadInput(String),
    /// See [`ErrorKind::Refused`].
    #[error("{0}")]
    Refused(String),
    /// See [`ErrorKind::Corrupt`].
    #[error("{0}")]
    Corrupt(String),
    /// See [`ErrorKind::Io`].
    #[error("{message}")]
    Io {
        /// What failed, naming the file.
        message: String,
        /// The cause.
        #[source]
        source: Option<std::io::Error>,
    },
    /// See [`ErrorKind::Internal`].
    #[error("{0}")]
    Internal(String),
}

/// The library's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A [`ErrorKind::BadInput`] error with this message.
    pub fn bad_input(message: impl Into<String>) -> Error {
        Error::BadInput(message.into())
    }

    /// A [`ErrorKind::Refused`] error with this message.
    pub fn refused(message: impl Into<String>) -> Error {
        Error::Refused(message.into())
    }

    /// A [`ErrorKind::Internal`] error with this message.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::Internal(message.into())
    }

    /// An error of `kind` with this message (an [`ErrorKind::Io`] one
    /// without its cause).
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> Error {
        let message = message.into();
        match kind {
            ErrorKind::BadInput => Error::BadInput(message),
            ErrorKind::Refused => Error::Refused(message),
            ErrorKind::Corrupt => Error::Corrupt(message),
            ErrorKind::Io => Error::Io { message, source: None },
            ErrorKind::Internal => Error::Internal(message),
        }
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::BadInput(_) => ErrorKind::BadInput,
            Error::Refused(_) => ErrorKind::Refused,
            Error::Corrupt(_) => ErrorKind::Corrupt,
            Error::Io { .. } => ErrorKind::Io,
            Error::Internal(_) => ErrorKind::Internal,
        }
    }

    /// Whether the user can fix it (bad input, a refused request, a damaged
    /// file), as opposed to the machine or the program failing.
    pub fn is_users(&self) -> bool {
        matches!(self.kind(), ErrorKind::BadInput | ErrorKind::Refused | ErrorKind::Corrupt)
    }
}

impl From<DbError> for Error {
    fn from(e: DbError) -> Error {
        let message = e.to_string();
        match e {
            DbError::Io { source, .. } => {
                use std::io::ErrorKind as K;
                // ELOOP (a symbolic link loop), EROFS (a read-only file
                // system) and ENAMETOOLONG (a name too long) on Linux: the
                // path given is what is wrong.
                let users = matches!(source.kind(), K::NotFound | K::PermissionDenied | K::IsADirectory | K::NotADirectory | K::InvalidInput | K::InvalidData)
                    || matches!(source.raw_os_error(), Some(40) | Some(30) | Some(36));
                if users {
                    Error::BadInput(message)
                } else {
                    Error::Io { message, source: Some(source) }
                }
            }
            DbError::NotADatabase { .. } | DbError::Version { .. } | DbError::Corrupt { .. } | DbError::Incomplete { .. } => Error::Corrupt(message),
            DbError::WrongRules { .. } | DbError::WrongBoard { .. } => Error::BadInput(message),
            DbError::TooLarge { .. } | DbError::Unsupported(_) => Error::Refused(message),
            DbError::Memory { .. } => Error::Io { message, source: None },
        }
    }
}

impl From<SearchError> for Error {
    fn from(e: SearchError) -> Error {
        let message = e.to_string();
        match e {
            SearchError::EndlessPlay | SearchError::WrongTablebase { .. } | SearchError::WrongPosition { .. } | SearchError::NotCovered { .. } => Error::BadInput(message),
            SearchError::Memory { .. } | SearchError::Threads { .. } => Error::Refused(message),
            // Contradicting values come from a damaged or forged database
            // far more often than from a bug: the file is what to check.
            SearchError::Tablebase(_) | SearchError::Inconsistent(_) => Error::Corrupt(message),
        }
    }
}

impl From<kalah_core::PositionError> for Error {
    fn from(e: kalah_core::PositionError) -> Error {
        Error::BadInput(e.to_string())
    }
}
