//! The web companion's connections to the store: at most [`MAX`], opened to read when first
//! needed and reused; a request waits for one to be free rather than opening more (opening a
//! large database checks it, which takes a while). A connection that failed is closed (the
//! next request opens a new one).

use super::pages::Broken;
use crate::store::Store;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};

/// Connections open at most.
const MAX: usize = 8;

/// Connections to one database, each used by one request at a time.
pub(super) struct Pool {
    db: PathBuf,
    state: Mutex<State>,
    freed: Condvar,
}

/// The idle connections, and how many are open in all.
struct State {
    idle: Vec<Store>,
    open: usize,
}

impl Pool {
    pub(super) fn new(db: PathBuf) -> Pool {
        Pool {
            db,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// Runs `f` on an idle connection, a new one (opened to read) while fewer than [`MAX`]
    /// are open, or the first one freed. The connection goes back to the pool unless `f`
    /// failed, in case the failure was the connection's.
    pub(super) fn with<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, Broken>,
    ) -> Result<T, Broken> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let idle = loop {
            if let Some(s) = state.idle.pop() {
                break Some(s);
            }
            if state.open < MAX {
                state.open += 1;
                break None;
            }
            state = self.freed.wait(state).unwrap_or_else(|e| e.into_inner());
        };
        drop(state);
        let mut store = match idle {
            Some(s) => s,
            None => match Store::open_to_read(&self.db) {
                Ok(s) => s,
                Err(e) => {
                    self.release(None);
                    return Err(e.into());
                }
            },
        };
        let out = f(&mut store);
        self.release(out.is_ok().then_some(store));
        out
    }

    /// A connection back to the pool (`None`: closed), and a waiting request told.
    fn release(&self, store: Option<Store>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match store {
            Some(s) => state.idle.push(s),
            None => state.open -= 1,
        }
        drop(state);
        self.freed.notify_one();
    }
}
