//! What serves many positions in one process: the JSON API's requests
//! and answers ([`api`], `kalah engine` and `kalah serve`), and the
//! searches that go on after an answer with bounds only
//! ([`background`]), the one memory limit they share ([`memory`]), and
//! the databases a server prepares as it starts ([`prepare`]).

pub mod api;
pub mod background;
pub mod memory;
pub mod prepare;
