//! Random samples, for the proofs done again of a journal's bounds or the
//! opening book's entries: the same seed, the same samples. Drawing them
//! needs the cargo feature `sampling` (on by default); without it, only a
//! "sample" of every item is had, in order.

use crate::error::Result;

/// Draws samples of indices from one seed, one after the other.
#[derive(Debug)]
pub(crate) struct Sampler {
    #[cfg(feature = "sampling")]
    rng: rand::rngs::StdRng,
}

impl Sampler {
    /// A sampler whose draws follow from `seed`.
    pub(crate) fn new(seed: u64) -> Sampler {
        #[cfg(not(feature = "sampling"))]
        let _ = seed;
        Sampler {
            #[cfg(feature = "sampling")]
            rng: rand::SeedableRng::seed_from_u64(seed),
        }
    }

    /// `amount` distinct indices below `len` (at most `len`), in the order
    /// drawn.
    #[cfg(feature = "sampling")]
    pub(crate) fn indices(&mut self, len: usize, amount: usize) -> Result<Vec<usize>> {
        Ok(rand::seq::index::sample(&mut self.rng, len, amount.min(len)).into_vec())
    }

    /// Every index below `len`, in order, if `amount` asks for them all;
    /// a smaller sample is refused in a build without the feature
    /// `sampling`.
    #[cfg(not(feature = "sampling"))]
    pub(crate) fn indices(&mut self, len: usize, amount: usize) -> Result<Vec<usize>> {
        if amount >= len {
            return Ok((0..len).collect());
        }
        Err(crate::error::Error::refused(format!(
            "a random sample of {amount} of {len}: this build of kalah draws none (its cargo feature `sampling` is off); ask for every one"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One seed, one sequence of samples; every index at most once; the
    /// whole is had in any build, a smaller sample only with `sampling`.
    #[test]
    fn a_seed_gives_one_sequence_of_samples() {
        let draw = |seed| {
            let mut s = Sampler::new(seed);
            (s.indices(1000, 1000).unwrap(), s.indices(1000, 10))
        };
        let (all, ten) = draw(7);
        let mut sorted = all.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
        assert_eq!(Sampler::new(7).indices(5, 10).unwrap().len(), 5);
        if cfg!(feature = "sampling") {
            let ten = ten.unwrap();
            assert_eq!((all, ten.clone()), (draw(7).0, draw(7).1.unwrap()));
            assert!(ten.len() == 10 && ten.iter().all(|&i| i < 1000));
            assert_ne!(ten, draw(8).1.unwrap());
        } else {
            assert_eq!(ten.unwrap_err().kind(), crate::error::ErrorKind::Refused);
        }
    }
}
