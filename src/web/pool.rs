//! The web companion's connections to the store: opened to read when first needed, reused,
//! and left closed after an error (the next request opens a new one).

use super::pages::Broken;
use crate::store::Store;
use std::path::PathBuf;
use std::sync::Mutex;

/// Connections to one database, each used by one request at a time.
pub(super) struct Pool {
    db: PathBuf,
    idle: Mutex<Vec<Store>>,
}

/// Connections kept open while idle, at most.
const KEPT: usize = 8;

impl Pool {
    pub(super) fn new(db: PathBuf) -> Pool {
        Pool {
            db,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` on an idle connection (or a new one, opened to read). The connection goes back
    /// to the pool unless `f` failed, in case the failure was the connection's.
    pub(super) fn with<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, Broken>,
    ) -> Result<T, Broken> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut store = match idle {
            Some(s) => s,
            None => Store::open_to_read(&self.db)?,
        };
        let out = f(&mut store);
        if out.is_ok() {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            if idle.len() < KEPT {
                idle.push(store);
            }
        }
        out
    }
}
