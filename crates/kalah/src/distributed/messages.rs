//! The messages between the master and its workers, and their form on
//! the wire (six 64-bit words).

use kalah_core::Board;

/// From the master to a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToWorker {
    /// Search the board (seen from its mover) of job `job`.
    Job {
        /// The job.
        job: usize,
        /// Its board.
        board: Board,
    },
    /// Go on with the job (after a progress report).
    Continue,
    /// Stop the job (after a progress report); report its bounds with `Done`.
    Stop,
    /// No more work.
    Quit,
}

/// From a worker to the master.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToMaster {
    /// The worker wants a job.
    Ready,
    /// A slice of job `job` ended: the bounds proven so far, the nodes searched since the last report.
    Progress {
        /// The job.
        job: usize,
        /// The value is at least this.
        lower: i32,
        /// The value is at most this.
        upper: i32,
        /// Nodes searched since the last report.
        nodes: u64,
    },
    /// Job `job` ended (solved, or stopped): its bounds, and the worker wants another.
    Done {
        /// The job.
        job: usize,
        /// The value is at least this.
        lower: i32,
        /// The value is at most this.
        upper: i32,
        /// Nodes searched since the last report.
        nodes: u64,
    },
    /// The worker failed (only workers in the master's process send this;
    /// a worker rank ends the whole job itself).
    Failed,
}

/// A message on the wire: six 64-bit words, the kind first.
pub type Words = [u64; 6];

fn bits(v: i32) -> u64 {
    v as i64 as u64
}

fn unbits(w: u64) -> i32 {
    w as i64 as i32
}

impl ToWorker {
    /// The message as words on the wire.
    pub fn encode(self) -> Words {
        match self {
            ToWorker::Job { job, board } => [1, job as u64, board.mover_word(), board.opponent_word(), 0, 0],
            ToWorker::Continue => [2, 0, 0, 0, 0, 0],
            ToWorker::Stop => [3, 0, 0, 0, 0, 0],
            ToWorker::Quit => [4, 0, 0, 0, 0, 0],
        }
    }

    /// The message [`ToWorker::encode`] wrote.
    pub fn decode(w: Words) -> ToWorker {
        match w[0] {
            1 => ToWorker::Job { job: w[1] as usize, board: Board::from_words(w[2], w[3]) },
            2 => ToWorker::Continue,
            3 => ToWorker::Stop,
            _ => ToWorker::Quit,
        }
    }
}

impl ToMaster {
    /// The message as words on the wire.
    pub fn encode(self) -> Words {
        match self {
            ToMaster::Ready => [1, 0, 0, 0, 0, 0],
            ToMaster::Progress { job, lower, upper, nodes } => [2, job as u64, bits(lower), bits(upper), nodes, 0],
            ToMaster::Done { job, lower, upper, nodes } => [3, job as u64, bits(lower), bits(upper), nodes, 0],
            ToMaster::Failed => [4, 0, 0, 0, 0, 0],
        }
    }

    /// The message [`ToMaster::encode`] wrote.
    pub fn decode(w: Words) -> ToMaster {
        let (job, lower, upper, nodes) = (w[1] as usize, unbits(w[2]), unbits(w[3]), w[4]);
        match w[0] {
            2 => ToMaster::Progress { job, lower, upper, nodes },
            3 => ToMaster::Done { job, lower, upper, nodes },
            4 => ToMaster::Failed,
            _ => ToMaster::Ready,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_survive_the_wire() {
        let board = Board::from_sides(&[1, 0, 7, 3], &[0, 2, 5, 9]);
        for m in [ToWorker::Job { job: 77, board }, ToWorker::Continue, ToWorker::Stop, ToWorker::Quit] {
            assert_eq!(ToWorker::decode(m.encode()), m);
        }
        for m in [
            ToMaster::Ready,
            ToMaster::Progress { job: 3, lower: -40, upper: 12, nodes: 1 << 40 },
            ToMaster::Done { job: 9, lower: -7, upper: -7, nodes: 5 },
            ToMaster::Failed,
        ] {
            assert_eq!(ToMaster::decode(m.encode()), m);
        }
    }
}
