//! Work over many positions, each behind one command: the openings, the
//! pie rule and seed shifts ([`openings`]), tables of starts
//! ([`starts`]) checked against the published values ([`published`]),
//! the clearing chains of one side ([`chains`]), building and proving the
//! opening book ([`book_build`]) and proving a journal again
//! ([`verify`]). Each asks the analyzer, or an oracle of many positions.

pub mod book_build;
pub mod chains;
pub mod openings;
pub mod published;
mod sample;
pub mod starts;
pub mod verify;
