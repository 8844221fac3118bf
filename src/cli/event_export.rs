//! What `ladder export` and `league export` share: every event of the kind (or the one named),
//! read in one snapshot, and each as a line of JSON.

use crate::store::{Store, StoreError, Tx};
use serde::Serialize;
use std::fmt::Display;

/// Every event of a kind (`what`: "ladder", "league"), or only `id`, read in one snapshot
/// (`one`: the event of an id; `all`: every event, oldest first) and each made into what is
/// exported by `export`; an `id` that names none is said ("there is no ladder #3").
pub(super) fn events<Id: Copy + Display, Row, Export>(
    store: &mut Store,
    (what, id): (&str, Option<Id>),
    one: fn(&Tx, Id) -> Result<Option<Row>, StoreError>,
    all: fn(&Tx) -> Result<Vec<Row>, StoreError>,
    export: fn(&Tx, Row) -> Result<Export, StoreError>,
) -> Result<Vec<Export>, String> {
    let exported = store
        .read(|tx| {
            let rows = match id {
                Some(id) => one(tx, id)?.into_iter().collect(),
                None => all(tx)?,
            };
            rows.into_iter()
                .map(|row| export(tx, row))
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .map_err(|e| e.to_string())?;
    match (id, exported.is_empty()) {
        (Some(id), true) => Err(format!("there is no {what} #{id}")),
        _ => Ok(exported),
    }
}

/// Each exported event as one line of JSON.
pub(super) fn json_lines<T: Serialize>(all: &[T]) -> Result<Vec<String>, String> {
    all.iter()
        .map(|e| serde_json::to_string(e).map_err(|e| e.to_string()))
        .collect()
}
