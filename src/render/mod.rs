//! Board images: a position in, PNG bytes out (and an animated GIF of a whole game). Pure: no
//! rules decisions are made here; everything shown comes from the engine.

mod ard_ri;
pub mod canvas;
mod draw;
mod frame;
mod header;
mod indexed;
mod layout;
mod replay;
mod tara;
pub mod text;
mod theme;

pub use draw::{board_png, draw, warm_up};
pub use frame::{Cell, Frame};
pub use layout::{HEIGHT, WIDTH};
pub use replay::{replay_gif, replay_gif_within, Replay, UPLOAD_LIMIT};
