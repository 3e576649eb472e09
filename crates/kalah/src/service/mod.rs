//! What serves many positions in one process: the JSON API's requests
//! and answers ([`api`], `kalah engine` and `kalah serve`), and the
//! searches that go on after an answer with bounds only
//! ([`background`]), and the one memory limit they share ([`memory`]).

pub mod api;
pub mod background;
pub mod memory;
