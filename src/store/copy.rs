//! `tara-bot db copy`: every table of one database into another, on either backend (SQLite to
//! PostgreSQL to move a deployment, PostgreSQL to SQLite for a portable copy), verified by row
//! counts and a checksum per table.

use super::db::{Result, Store, StoreError, Tx};
use super::migrations::TABLES;
use super::value::{Params, ToValue, Value};
use std::path::Path;

/// The rows a fresh database starts with (the AI's and the open challenge's users, made by the
/// migrations): a target holding only these is empty.
const SEEDED_USERS: i64 = 2;

/// One table's rows, as read.
pub(super) struct Table {
    pub(super) columns: Vec<String>,
    pub(super) rows: Vec<Vec<Value>>,
}

impl Table {
    /// A checksum of the rows in key order: FNV-1a (64 bits) over each value's kind and
    /// bytes, the same whichever backend they were read from.
    pub(super) fn checksum(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        for row in &self.rows {
            for v in row {
                match v {
                    Value::Null => eat(b"N"),
                    Value::Int(i) => {
                        eat(b"I");
                        eat(&i.to_le_bytes());
                    }
                    Value::Real(r) => {
                        eat(b"R");
                        eat(&r.to_bits().to_le_bytes());
                    }
                    Value::Text(s) => {
                        eat(b"T");
                        eat(&(s.len() as u64).to_le_bytes());
                        eat(s.as_bytes());
                    }
                    Value::Blob(b) => {
                        eat(b"B");
                        eat(&(b.len() as u64).to_le_bytes());
                        eat(b);
                    }
                }
            }
            eat(b"\n");
        }
        h
    }
}

/// What was copied: each table's rows and checksum, the same in the source and the copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopySummary {
    /// (table, rows, checksum), in copy order.
    pub tables: Vec<(&'static str, usize, u64)>,
}

impl std::fmt::Display for CopySummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (table, rows, sum)) in self.tables.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{table:<20} {rows:>9} rows  checksum {sum:016x}  ok")?;
        }
        Ok(())
    }
}

impl Tx<'_> {
    /// Every row of `table` in key order.
    pub(super) fn table(&self, table: &'static str, key: &str) -> Result<Table> {
        let (columns, rows) = self.rows(&format!("SELECT * FROM {table} ORDER BY {key}"))?;
        Ok(Table { columns, rows })
    }

    /// Whether the database holds anything but what its migrations put there.
    fn is_empty_database(&self) -> Result<bool> {
        for (table, _) in TABLES {
            let n: i64 = self.value(
                table,
                &format!("SELECT COUNT(*) AS n FROM {table}"),
                &[],
                "n",
            )?;
            let seeded = if *table == "users" { SEEDED_USERS } else { 0 };
            if n > seeded {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Inserts rows of `table` (columns named as read).
    fn put_rows(&self, table: &str, t: &Table, skip: &[&str]) -> Result<()> {
        let columns: Vec<usize> = (0..t.columns.len())
            .filter(|&i| !skip.contains(&t.columns[i].as_str()))
            .collect();
        let names: Vec<&str> = columns.iter().map(|&i| t.columns[i].as_str()).collect();
        let marks: Vec<String> = (1..=columns.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "INSERT INTO {table} ({}) VALUES ({})",
            names.join(", "),
            marks.join(", ")
        );
        for row in &t.rows {
            let values: Vec<&dyn ToValue> =
                columns.iter().map(|&i| &row[i] as &dyn ToValue).collect();
            self.exec(&sql, &values as Params)?;
        }
        Ok(())
    }
}

/// Copies every table of the database at `from` into the one at `to` (files or PostgreSQL
/// URLs), in one transaction on the target, then reads both again and compares each table's
/// rows and checksum. The source is read as one snapshot (and upgraded first, if it is a file
/// of an older schema). A target that holds anything is refused unless `force`, which empties
/// it first (in the same transaction).
pub fn copy(from: &Path, to: &Path, force: bool) -> Result<CopySummary> {
    let named = |option: &'static str, db: &Path| {
        let db = super::db::shown(db);
        move |e: StoreError| StoreError::Named {
            option,
            db,
            source: Box::new(e),
        }
    };
    let mut source = Store::open_to_read(from).map_err(named("--from", from))?;
    let mut target = Store::open(to).map_err(named("--to", to))?;
    let tables = source.read(|tx| -> Result<Vec<Table>> {
        TABLES.iter().map(|(t, key)| tx.table(t, key)).collect()
    })?;
    target.write(|tx| -> Result<()> {
        if !tx.is_empty_database()? {
            if !force {
                return Err(StoreError::Invalid(
                    "the target database is not empty; name an empty one, or add --force to \
                     replace everything in it"
                        .to_string(),
                ));
            }
            tx.exec("UPDATE tournament_pairings SET game_id = NULL", &[])?;
            for (table, _) in TABLES.iter().rev() {
                tx.exec(&format!("DELETE FROM {table}"), &[])?;
            }
        }
        // The sentinel users the migrations made are copied with everyone else.
        tx.exec("DELETE FROM users", &[])?;
        for ((table, _), t) in TABLES.iter().zip(&tables) {
            let skip: &[&str] = if *table == "tournament_pairings" {
                &["game_id"]
            } else {
                &[]
            };
            tx.put_rows(table, t, skip)?;
        }
        let pairings = &tables[TABLES
            .iter()
            .position(|(t, _)| *t == "tournament_pairings")
            .unwrap_or_default()];
        let id = pairings.columns.iter().position(|c| c == "id");
        let game = pairings.columns.iter().position(|c| c == "game_id");
        if let (Some(id), Some(game)) = (id, game) {
            for row in pairings.rows.iter().filter(|r| r[game] != Value::Null) {
                tx.exec(
                    "UPDATE tournament_pairings SET game_id = $2 WHERE id = $1",
                    &[&row[id], &row[game]],
                )?;
            }
        }
        tx.restart_ids()?;
        Ok(())
    })?;
    let copied = target.read(|tx| -> Result<Vec<Table>> {
        TABLES.iter().map(|(t, key)| tx.table(t, key)).collect()
    })?;
    let mut summary = Vec::new();
    for (((table, _), a), b) in TABLES.iter().zip(&tables).zip(&copied) {
        let (sa, sb) = (a.checksum(), b.checksum());
        if a.rows.len() != b.rows.len() || sa != sb {
            return Err(StoreError::Corrupt(format!(
                "the copy of {table} differs from the source: {} rows (checksum {sa:016x}) \
                 copied as {} rows (checksum {sb:016x})",
                a.rows.len(),
                b.rows.len()
            )));
        }
        summary.push((*table, a.rows.len(), sa));
    }
    Ok(CopySummary { tables: summary })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_of_the_schema_is_copied() {
        let mut store = Store::open_in_memory().unwrap();
        let (_, rows) = store
            .read(|tx| {
                tx.rows(
                    "SELECT name FROM sqlite_schema WHERE type = 'table' \
                     AND name NOT LIKE 'sqlite_%' ORDER BY name",
                )
            })
            .unwrap();
        let mut schema: Vec<String> = rows
            .into_iter()
            .map(|r| match &r[0] {
                Value::Text(t) => t.clone(),
                v => panic!("{v:?}"),
            })
            .collect();
        schema.sort();
        let mut copied: Vec<String> = TABLES.iter().map(|(t, _)| t.to_string()).collect();
        copied.sort();
        assert_eq!(copied, schema);
    }

    #[test]
    fn checksums_tell_kinds_and_order_apart() {
        let table = |rows: Vec<Vec<Value>>| Table {
            columns: vec!["a".into()],
            rows,
        };
        let one = table(vec![vec![Value::Int(1)], vec![Value::Text("x".into())]]);
        let swapped = table(vec![vec![Value::Text("x".into())], vec![Value::Int(1)]]);
        let real = table(vec![vec![Value::Real(1.0)], vec![Value::Text("x".into())]]);
        assert_ne!(one.checksum(), swapped.checksum());
        assert_ne!(one.checksum(), real.checksum());
        assert_eq!(one.checksum(), table(one.rows.clone()).checksum());
    }
}
