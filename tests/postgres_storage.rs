//! PostgreSQL as the store: a fresh database gets tara-bot's schema (once, whoever opens it
//! first), another program's schema is refused untouched, `db check` and `db backup` work on
//! it, and `db copy` moves a deployment between the backends with every row intact. Built only
//! when `TARA_BOT_TEST_POSTGRES` is set (`build.rs`).

mod common;

use common::{new_db, player_moves, Harness};
use std::path::{Path, PathBuf};
use tara_bot::bot::Command;
use tara_bot::game::Move;
use tara_bot::store::{ChannelId, ServerId, UserId};
use tara_bot::store::{Store, SCHEMA_VERSION};

fn tara_bot(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(args)
        .env_remove("TARA_BOT_DB")
        .env_remove("TARA_BOT_DATABASE_URL")
        .output()
        .unwrap()
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A database written by today's bot: finished games of several variants (one resigned,
/// rated), one in progress, a pending challenge, owed messages, settings and ratings.
fn played(db: PathBuf, dir: tempfile::TempDir) -> Harness {
    let h = Harness::on(dir, db, false);
    for (i, (variant, seed)) in [("hkot-1", 1), ("sacred-hill-2", 2), ("ard-ri", 3)]
        .into_iter()
        .enumerate()
    {
        let channel = format!("c{i}");
        let g = h.start("aoife", "brian", &channel, variant, "challenger");
        let moves = player_moves(g.options, seed);
        let mut pos = tara_bot::game::Position::new(g.options);
        for m in moves.iter().take(if i == 2 { 12 } else { moves.len() }) {
            let who = &g.seats[pos.to_move().unwrap()];
            let r = h.mv(who.as_str(), &channel, &m.to_string());
            assert!(!r[0].ephemeral, "{}", r[0].plain_text());
            pos.play(*m).unwrap();
            while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
                pos.play(Move::Pass).unwrap();
            }
        }
    }
    // A resignation after both players moved: a rated loss.
    h.start("ciara", "brian", "c9", "hkot-2", "challenger");
    h.opening("c9");
    let r = h.send(
        "ciara",
        "c9",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    h.send(
        "aoife",
        "c8",
        common::challenge_cmd("ciara", "sacred-hill-1", None, None, false, None),
    );
    // A private note on the game in progress.
    let r = h.send(
        "aoife",
        "c2",
        Command::Note {
            text: Some("close the corners".into()),
            game: None,
        },
    );
    assert!(r[0].plain_text().contains("saved"), "{}", r[0].plain_text());
    // A conditional move stored by the player waiting in that game.
    let g2 = common::active(&h.db(), "c2").expect("c2 in progress");
    let (_, _, pos) = common::stored(&h.db(), g2.id);
    let waiting = g2.seats[pos.to_move().unwrap().opponent()].to_string();
    let mut p = pos.clone();
    let theirs = p.legal_moves()[0];
    p.play(theirs).unwrap();
    let line = format!("{theirs} {}", p.legal_moves()[0]);
    let r = h.send(&waiting, "c2", Command::ConditionalAdd { line, game: None });
    assert!(
        r[0].plain_text().starts_with("Stored"),
        "{}",
        r[0].plain_text()
    );
    h
}

#[test]
fn a_fresh_database_gets_the_schema_once_and_checks_fine() {
    let dir = tempfile::tempdir().unwrap();
    let url = new_db(dir.path());
    let mut a = Store::open(&url).unwrap();
    assert_eq!(a.schema_version().unwrap(), SCHEMA_VERSION);
    // A second process opening it finds nothing to do.
    let mut b = Store::open(&url).unwrap();
    assert_eq!(b.schema_version().unwrap(), SCHEMA_VERSION);
    drop((a, b));
    let out = tara_bot(&["db", "check", "--db", s(&url)]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("owner: tara-bot (its schema holds tara_bot_meta)"),
        "{said}"
    );
    assert!(
        said.contains(&format!("schema: version {SCHEMA_VERSION}")),
        "{said}"
    );
    assert!(said.contains("contents: 0 games, 0 moves"), "{said}");
    assert!(said.contains("result: fine"), "{said}");
}

/// Each migration is written for SQLite and for PostgreSQL (`migrations/` and
/// `migrations/postgres/`): the two schemas they make have the same tables, each with the same
/// columns in the same order, of the same kinds, required alike, and the same primary key.
#[test]
fn the_two_texts_of_the_migrations_make_the_same_schema() {
    type Columns = Vec<(String, String, String, bool, i64)>;
    let dir = tempfile::tempdir().unwrap();
    let url = new_db(dir.path());
    drop(Store::open(&url).unwrap());
    let file = dir.path().join("same.db");
    drop(Store::open(&file).unwrap());
    let sqlite = rusqlite::Connection::open(&file).unwrap();
    let mut st = sqlite
        .prepare(
            "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk \
             FROM sqlite_master m, pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid",
        )
        .unwrap();
    let on_sqlite: Columns = st
        .query_map([], |r| {
            let kind = match r.get::<_, String>(2)?.as_str() {
                "INTEGER" => "bigint",
                "TEXT" => "text",
                "REAL" => "double precision",
                "BLOB" => "bytea",
                other => panic!("a column of SQLite type {other}"),
            };
            let pk: i64 = r.get(4)?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                kind.to_string(),
                r.get::<_, bool>(3)? || pk > 0,
                pk,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut pg = postgres::Client::connect(s(&url), postgres::NoTls).unwrap();
    let on_postgres: Columns = pg
        .query(
            "SELECT c.table_name::text, c.column_name::text, c.data_type::text, \
                    c.is_nullable = 'NO', COALESCE(k.ordinal_position, 0)::bigint \
             FROM information_schema.columns c \
             LEFT JOIN information_schema.table_constraints t \
               ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
              AND t.constraint_type = 'PRIMARY KEY' \
             LEFT JOIN information_schema.key_column_usage k \
               ON k.constraint_schema = t.constraint_schema \
              AND k.constraint_name = t.constraint_name AND k.column_name = c.column_name \
             WHERE c.table_schema = current_schema() AND c.table_name <> 'tara_bot_meta' \
             ORDER BY c.table_name COLLATE \"C\", c.ordinal_position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    assert!(on_sqlite.len() > 100, "{} columns", on_sqlite.len());
    assert_eq!(on_sqlite, on_postgres);
}

#[test]
fn another_programs_schema_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let url = new_db(dir.path());
    let mut c = postgres::Client::connect(s(&url), postgres::NoTls).unwrap();
    c.batch_execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY)")
        .unwrap();
    match Store::open(&url) {
        Err(e) => assert!(e.to_string().contains("invoices"), "{e}"),
        Ok(_) => panic!("another program's schema was taken"),
    }
    let tables: i64 = c
        .query_one(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 1, "nothing was created beside its table");
    let out = tara_bot(&["db", "check", "--db", s(&url)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("another program"), "{}", text(&out));
    assert!(
        !text(&out).contains("integrity: ok") && text(&out).contains("will not use this database"),
        "{}",
        text(&out)
    );
    // Issue 45: said as what it is (a PostgreSQL schema, not an SQLite file), naming the
    // option that named it.
    let from = dir.path().join("source.db");
    Store::open(&from).unwrap();
    let out = tara_bot(&["db", "copy", "--from", s(&from), "--to", s(&url)]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("--to postgres://")
            && said.contains("the PostgreSQL schema is another program's"),
        "{said}"
    );
    assert!(!said.contains("SQLite") && !said.contains("--db"), "{said}");
}

#[test]
fn a_bad_database_url_is_named_without_its_password() {
    let out = tara_bot(&[
        "db",
        "check",
        "--db",
        "postgres://bot:hunter2@127.0.0.1:1/nowhere",
    ]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("cannot connect to the PostgreSQL database"),
        "{said}"
    );
    assert!(
        said.contains("postgres://bot:***@127.0.0.1:1/nowhere"),
        "{said}"
    );
    assert!(!said.contains("hunter2"), "{said}");
}

/// Issue 45: a database that does not exist on a server that runs is named as the cause, in
/// the server's words, not "(db error)".
#[test]
fn a_missing_database_is_said_in_the_servers_words() {
    let base = common::postgres_url();
    let (head, _) = base.rsplit_once('/').expect("a URL with a database");
    let url = format!("{head}/tara_no_such_database");
    let out = tara_bot(&["db", "check", "--db", &url]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("database \"tara_no_such_database\" does not exist"),
        "{said}"
    );
    assert!(!said.contains("(db error)"), "{said}");
}

#[test]
fn db_copy_moves_every_row_to_postgres_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("today.db");
    let h = played(file.clone(), tempfile::tempdir().unwrap());
    drop(h);
    let url = new_db(dir.path());
    let back = dir.path().join("back.db");

    let out = tara_bot(&["db", "copy", "--from", s(&file), "--to", s(&url)]);
    let there = text(&out);
    assert!(out.status.success(), "{there}");
    assert!(there.contains("games"), "{there}");
    let games_line = there.lines().find(|l| l.starts_with("games ")).unwrap();
    assert!(games_line.contains(" 4 rows"), "{games_line}");
    let lines_line = there
        .lines()
        .find(|l| l.starts_with("conditionals "))
        .unwrap();
    assert!(lines_line.contains(" 1 rows"), "{lines_line}");

    // A target that is not empty is refused, and left as it is.
    let out = tara_bot(&["db", "copy", "--from", s(&file), "--to", s(&url)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("not empty"), "{}", text(&out));

    // The copy is a working database: the game in progress goes on there.
    {
        let dir2 = tempfile::tempdir().unwrap();
        let h = Harness::on(dir2, url.clone(), false);
        let g = common::active(&h.db(), "c2").unwrap();
        let (_, _, pos) = common::stored(&h.db(), g.id);
        let who = &g.seats[pos.to_move().unwrap()];
        let r = h.mv(who.as_str(), "c2", &pos.legal_moves()[0].to_string());
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        // The conditional move came along: it answers that move at once (and is spent).
        assert!(
            common::texts(&r).contains("(played by conditional move)"),
            "{}",
            common::texts(&r)
        );
        // New rows get new ids after the copied ones.
        let g2 = h.start("dara", "eoin", "c7", "hkot-1", "challenger");
        assert_eq!(g2.id.0, 5);
    }

    // And back into SQLite: every table as in PostgreSQL.
    let out = tara_bot(&["db", "copy", "--from", s(&url), "--to", s(&back)]);
    let home = text(&out);
    assert!(out.status.success(), "{home}");
    let sums = |said: &str| -> Vec<String> {
        said.lines()
            .filter(|l| l.contains(" rows  checksum "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(sums(&home).len(), 27, "{home}");
    let notes = home.lines().find(|l| l.starts_with("notes ")).unwrap();
    assert!(notes.contains(" 1 rows"), "{notes}");
    let lines = home
        .lines()
        .find(|l| l.starts_with("conditionals "))
        .unwrap();
    assert!(lines.contains(" 0 rows"), "spent in the copy: {lines}");

    // --force replaces what is there: the first copy again, checked the same.
    let out = tara_bot(&[
        "db",
        "copy",
        "--from",
        s(&file),
        "--to",
        s(&back),
        "--force",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(sums(&text(&out)), sums(&there));
    let again = tara_bot(&[
        "db",
        "copy",
        "--from",
        s(&back),
        "--to",
        s(&new_db(dir.path())),
    ]);
    assert_eq!(
        sums(&text(&again)),
        sums(&there),
        "a round trip changes nothing"
    );
}

#[test]
fn db_backup_dumps_a_postgres_database() {
    let dir = tempfile::tempdir().unwrap();
    let url = new_db(dir.path());
    let h = Harness::on(tempfile::tempdir().unwrap(), url.clone(), false);
    h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    drop(h);
    let file = dir.path().join("tara.dump");
    let out = tara_bot(&["db", "backup", s(&file), "--db", s(&url)]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 game, 0 moves"), "{said}");
    let dump = std::fs::read(&file).unwrap();
    assert_eq!(&dump[..5], b"PGDMP", "pg_dump's custom format");
}

/// A game of server `server` between `a` and `b`, with no move yet.
fn game_on(store: &mut Store, server: &str, a: &str, b: &str) -> tara_bot::store::GameId {
    use tara_bot::game::{BySide, GameOptions, Variant};
    use tara_bot::store::{NewGame, UserId};
    let (a, b) = (UserId::new(a.to_string()), UserId::new(b.to_string()));
    store
        .write(|tx| {
            tx.upsert_user(&a, a.as_str(), 0)?;
            tx.upsert_user(&b, b.as_str(), 0)?;
            tx.insert_game(
                &NewGame {
                    server_id: &ServerId::new(server.to_string()),
                    channel_id: &ChannelId::new(format!("{server}-c")),
                    options: GameOptions::new(Variant::Hkot1),
                    seats: BySide::new(&a, &b),
                    match_id: None,
                    match_game: None,
                    pairing_id: None,
                    rated: false,
                    ai_levels: BySide::new(None, None),
                    days_per_move: None,
                },
                0,
            )
        })
        .unwrap()
}

/// Stores move `ply` of `game` by `user`, as a command on `server` would, in its own
/// transaction; `hold` runs inside it, before the commit.
fn move_within(
    store: &mut Store,
    (server, user): (&str, &str),
    game: tara_bot::store::GameId,
    ply: u32,
    hold: impl FnOnce(),
) {
    use tara_bot::store::{MoveRow, StoreError, UserId};
    store
        .write_within(server, user, |tx| {
            tx.insert_move(
                game,
                &MoveRow {
                    ply,
                    notation: ["D4", "B2", "F6"][ply as usize].into(),
                    user_id: Some(UserId::new(user.to_string())),
                    created_at: 0,
                },
            )?;
            hold();
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// Two processes (two connections) on one database: while one holds a command's transaction
/// open on server 1's game, a move on server 2's game by another player commits beside it; a
/// move on the same game (the same server), or a change for the whole database, waits until
/// the first commits.
#[test]
fn commands_on_different_servers_do_not_wait_for_each_other() {
    use std::sync::mpsc::channel;
    let dir = tempfile::tempdir().unwrap();
    let url = new_db(dir.path());
    let mut setup = Store::open(&url).unwrap();
    let g1 = game_on(&mut setup, "s1", "aoife", "brian");
    let g2 = game_on(&mut setup, "s2", "ciara", "donal");
    for (other, same_game) in [(("s2", "ciara"), false), (("s1", "brian"), true)] {
        let (held, is_held) = channel();
        let (release, released) = channel::<()>();
        let (url_a, game_a) = (url.clone(), g1);
        // Plies in order: g1 0 (A), g2 0 (B); then g1 1 (A), g1 2 (B).
        let (ply_a, ply_b) = if same_game { (1, 2) } else { (0, 0) };
        // Process A: a move on server 1's game, its transaction held open until B is done,
        // or for 3 s at most (when B waits for A). Whether B was done while A held it.
        let a = std::thread::spawn(move || {
            let mut store = Store::open(&url_a).unwrap();
            let mut b_done_meanwhile = false;
            move_within(&mut store, ("s1", "aoife"), game_a, ply_a, || {
                held.send(()).unwrap();
                b_done_meanwhile = released
                    .recv_timeout(std::time::Duration::from_secs(3))
                    .is_ok();
            });
            b_done_meanwhile
        });
        is_held.recv().unwrap();
        // Process B, while A holds its transaction open.
        let mut store = Store::open(&url).unwrap();
        let game_b = if same_game { g1 } else { g2 };
        move_within(&mut store, other, game_b, ply_b, || {});
        let _ = release.send(());
        let b_done_meanwhile = a.join().unwrap();
        if same_game {
            assert!(
                !b_done_meanwhile,
                "a move on the same game waits for the one in progress"
            );
        } else {
            assert!(
                b_done_meanwhile,
                "server 2's move committed while server 1's was open"
            );
        }
    }
    // A change for the whole database (the clocks, the AI) waits for a command in progress.
    let (held, is_held) = channel();
    let (release, released) = channel::<()>();
    let url_a = url.clone();
    let a = std::thread::spawn(move || {
        let mut store = Store::open(&url_a).unwrap();
        let mut done_meanwhile = false;
        move_within(&mut store, ("s2", "ciara"), g2, 1, || {
            held.send(()).unwrap();
            done_meanwhile = released
                .recv_timeout(std::time::Duration::from_secs(3))
                .is_ok();
        });
        done_meanwhile
    });
    is_held.recv().unwrap();
    let mut store = Store::open(&url).unwrap();
    store
        .write(|tx| tx.upsert_user(&UserId::new("eimear"), "eimear", 0))
        .unwrap();
    let _ = release.send(());
    assert!(
        !a.join().unwrap(),
        "the whole database waits for a command in progress"
    );
    // Every move is there, none lost.
    let mut moves = |g| store.read(|tx| tx.moves(g)).unwrap().len();
    assert_eq!((moves(g1), moves(g2)), (3, 2));
}
